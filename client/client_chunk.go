package client

import (
	"fmt"
	"strconv"
)

// chunk is what one streamed event says, as far as timing needs to know.
type chunk struct {
	tokens     bool // choices[0] carries generated text (or reasoning)
	hasUsage   bool
	prompt     int
	completion int
	failed     bool   // the event is an error report
	message    []byte // the error's message, raw, when failed
}

// maxJSONDepth bounds nesting in skipped values, so a hostile event cannot
// exhaust the stack.
const maxJSONDepth = 512

// parseChunk reads one event's data: a JSON object with optional "choices"
// (array of objects with "text" or "delta": {"content",
// "reasoning_content", "reasoning"}), "usage" ({"prompt_tokens",
// "completion_tokens"}) and "error" members, as the OpenAI streaming API and
// vLLM send them. Other members are validated and skipped. It is a small
// hand-written scanner: it allocates nothing and validates the whole value.
// Member names are compared as written; a name spelled with escapes is
// treated as unknown.
func parseChunk(data []byte, c *chunk) error {
	*c = chunk{}
	p := jsonScanner{b: data}
	p.ws()
	if !p.peek('{') {
		return p.fail("event data is not a JSON object")
	}
	err := p.object(func(name []byte) error {
		switch string(name) {
		case "choices":
			return p.choices(c)
		case "usage":
			return p.usage(c)
		case "error":
			if p.null() {
				return nil
			}
			c.failed = true
			if p.peek('{') {
				return p.object(func(name []byte) error {
					if string(name) == "message" && p.peek('"') {
						s, err := p.str()
						c.message = s
						return err
					}
					return p.skip(0)
				})
			}
			start := p.i
			err := p.skip(0)
			c.message = p.b[start:p.i]
			return err
		case "object":
			if p.peek('"') {
				s, err := p.str()
				if string(s) == "error" {
					c.failed = true
				}
				return err
			}
		case "message":
			if p.peek('"') {
				s, err := p.str()
				if c.message == nil {
					c.message = s
				}
				return err
			}
		}
		return p.skip(0)
	})
	if err != nil {
		return err
	}
	if !c.failed {
		c.message = nil
	}
	p.ws()
	if p.i != len(p.b) {
		return p.fail("data after the JSON object")
	}
	return nil
}

func (p *jsonScanner) choices(c *chunk) error {
	if p.null() {
		return nil
	}
	if !p.peek('[') {
		return p.fail(`"choices" is not an array`)
	}
	first := true
	return p.array(func() error {
		if !first {
			return p.skip(0)
		}
		first = false
		if !p.peek('{') {
			return p.fail("a choice is not an object")
		}
		return p.object(func(name []byte) error {
			switch string(name) {
			case "text":
				return p.tokenText(c)
			case "delta":
				if p.null() {
					return nil
				}
				if !p.peek('{') {
					return p.fail(`"delta" is not an object`)
				}
				return p.object(func(name []byte) error {
					switch string(name) {
					case "content", "reasoning_content", "reasoning":
						return p.tokenText(c)
					}
					return p.skip(0)
				})
			}
			return p.skip(0)
		})
	})
}

// tokenText reads a string or null; a non-empty string is generated text.
// An escape always stands for at least one character, so a raw length of
// zero is exactly the empty string.
func (p *jsonScanner) tokenText(c *chunk) error {
	if p.null() {
		return nil
	}
	if !p.peek('"') {
		return p.fail("token text is not a string")
	}
	s, err := p.str()
	if len(s) > 0 {
		c.tokens = true
	}
	return err
}

func (p *jsonScanner) usage(c *chunk) error {
	if p.null() {
		return nil
	}
	if !p.peek('{') {
		return p.fail(`"usage" is not an object`)
	}
	c.hasUsage = true
	return p.object(func(name []byte) error {
		switch string(name) {
		case "prompt_tokens":
			return p.count(&c.prompt)
		case "completion_tokens":
			return p.count(&c.completion)
		}
		return p.skip(0)
	})
}

// jsonScanner is a validating JSON scanner over one event's data.
type jsonScanner struct {
	b []byte
	i int
}

// malformedError says where an event stopped being the JSON it should be.
type malformedError struct {
	offset int
	reason string
}

func (e *malformedError) Error() string {
	return fmt.Sprintf("malformed event at byte %d: %s", e.offset, e.reason)
}

func (p *jsonScanner) fail(reason string) error { return &malformedError{offset: p.i, reason: reason} }

func (p *jsonScanner) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek skips white space and reports whether the next byte is c.
func (p *jsonScanner) peek(c byte) bool {
	p.ws()
	return p.i < len(p.b) && p.b[p.i] == c
}

// null consumes a null literal if one is next.
func (p *jsonScanner) null() bool {
	if p.peek('n') && len(p.b)-p.i >= 4 && string(p.b[p.i:p.i+4]) == "null" {
		p.i += 4
		return true
	}
	return false
}

// object reads an object (the next byte is '{'), calling member with each
// name; member must consume the value.
func (p *jsonScanner) object(member func(name []byte) error) error {
	p.i++ // '{'
	if p.peek('}') {
		p.i++
		return nil
	}
	for {
		if !p.peek('"') {
			return p.fail("expected a member name")
		}
		name, err := p.str()
		if err != nil {
			return err
		}
		if !p.peek(':') {
			return p.fail("expected ':'")
		}
		p.i++
		p.ws()
		if err := member(name); err != nil {
			return err
		}
		p.ws()
		if p.i >= len(p.b) {
			return p.fail("unterminated object")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return nil
		default:
			return p.fail("expected ',' or '}'")
		}
	}
}

// array reads an array (the next byte is '['), calling elem for each
// element; elem must consume it.
func (p *jsonScanner) array(elem func() error) error {
	p.i++ // '['
	if p.peek(']') {
		p.i++
		return nil
	}
	for {
		p.ws()
		if err := elem(); err != nil {
			return err
		}
		p.ws()
		if p.i >= len(p.b) {
			return p.fail("unterminated array")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return nil
		default:
			return p.fail("expected ',' or ']'")
		}
	}
}

// str reads a string (the next byte is '"') and returns its raw contents,
// escapes not decoded.
func (p *jsonScanner) str() ([]byte, error) {
	p.i++ // '"'
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			return s, nil
		case c == '\\':
			if p.i+1 >= len(p.b) {
				return nil, p.fail("unterminated string")
			}
			switch p.b[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if p.i+6 > len(p.b) || !isHex4(p.b[p.i+2:p.i+6]) {
					return nil, p.fail(`bad \u escape`)
				}
				p.i += 6
			default:
				return nil, p.fail("bad escape")
			}
		case c < 0x20:
			return nil, p.fail("control character in string")
		default:
			p.i++
		}
	}
	return nil, p.fail("unterminated string")
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// number reads a JSON number and returns its text.
func (p *jsonScanner) number() ([]byte, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, p.fail("bad number")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.fail("bad number")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.fail("bad number")
		}
	}
	return p.b[start:p.i], nil
}

// count reads a non-negative integer token count.
func (p *jsonScanner) count(n *int) error {
	if p.null() {
		return nil
	}
	at := p.i
	text, err := p.number()
	if err != nil {
		return err
	}
	v, perr := strconv.Atoi(string(text))
	if perr != nil || v < 0 {
		p.i = at
		return p.fail("token count is not a non-negative integer")
	}
	*n = v
	return nil
}

// skip validates and consumes any value.
func (p *jsonScanner) skip(depth int) error {
	if depth > maxJSONDepth {
		return p.fail("nested too deeply")
	}
	p.ws()
	if p.i >= len(p.b) {
		return p.fail("expected a value")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(func([]byte) error { return p.skip(depth + 1) })
	case c == '[':
		return p.array(func() error { return p.skip(depth + 1) })
	case c == '"':
		_, err := p.str()
		return err
	case c == '-' || '0' <= c && c <= '9':
		_, err := p.number()
		return err
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
			p.i += len(lit)
			return nil
		}
	}
	return p.fail("expected a value")
}

package client

import "fmt"

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

package client

// The scanner is hand-written because the maintained zero-allocation JSON
// libraries were slower on vLLM's events. Parsers built on each, timed
// beside it on BenchmarkChunk's events in one run (go test -bench Chunk
// -benchmem -count 5, median ns/event, 2 shared cores; all 0 allocs/event):
//
//	event        scanner  fastjson 1.6.10  jsonparser 1.6.1
//	completion       312     567 (1.8×)        410 (1.3×)
//	chat delta       339     746 (2.2×)        809 (2.4×)
//	final usage      574     911 (1.6×)        915 (1.6×)
//	long text       3203   10134 (3.2×)       5107 (1.6×)
//
// fastjson needs Parse and Validate to be as strict as this scanner (and
// Validate misses a raw control character before an escape); jsonparser
// was timed without validating at all. Both exceed the 1.2× allowed for a
// switch.

import "strconv"

// chunk is what one streamed event says, as far as timing needs to know.
type chunk struct {
	tokens     bool // choices[0] carries generated text (or reasoning)
	hasUsage   bool
	prompt     int
	completion int
	cached     int  // usage.prompt_tokens_details.cached_tokens
	hasCached  bool // the server reported it (vLLM: --enable-prompt-tokens-details)
	// stopped is choices[0].finish_reason "stop": the generation ended at
	// end-of-sequence (or a stop string). A stop chunk with no text
	// carries a token that is in completion_tokens and in no text.
	stopped bool
	failed  bool   // the event is an error report
	message []byte // the error's message, raw, when failed
	// texts counts the token texts (strings or nulls) read; textAt and
	// textEnd are where the last string among them starts (its opening
	// quote) and ends (just past its closing one), for eventTemplate.
	texts, textAt, textEnd int
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

func (sc *jsonScanner) choices(c *chunk) error {
	if sc.null() {
		return nil
	}
	if !sc.peek('[') {
		return sc.fail(`"choices" is not an array`)
	}
	first := true
	return sc.array(func() error {
		if !first {
			return sc.skip(0)
		}
		first = false
		if !sc.peek('{') {
			return sc.fail("a choice is not an object")
		}
		return sc.object(func(name []byte) error {
			switch string(name) {
			case "text":
				return sc.tokenText(c)
			case "finish_reason":
				if sc.peek('"') {
					s, err := sc.str()
					c.stopped = string(s) == "stop"
					return err
				}
				return sc.skip(0)
			case "delta":
				if sc.null() {
					return nil
				}
				if !sc.peek('{') {
					return sc.fail(`"delta" is not an object`)
				}
				return sc.object(func(name []byte) error {
					switch string(name) {
					case "content", "reasoning_content", "reasoning":
						return sc.tokenText(c)
					}
					return sc.skip(0)
				})
			}
			return sc.skip(0)
		})
	})
}

// tokenText reads a string or null; a non-empty string is generated text.
// An escape always stands for at least one character, so a raw length of
// zero is exactly the empty string.
func (sc *jsonScanner) tokenText(c *chunk) error {
	c.texts++
	if sc.null() {
		return nil
	}
	if !sc.peek('"') {
		return sc.fail("token text is not a string")
	}
	at := sc.i
	s, err := sc.str()
	if len(s) > 0 {
		c.tokens = true
	}
	c.textAt, c.textEnd = at, sc.i
	return err
}

func (sc *jsonScanner) usage(c *chunk) error {
	if sc.null() {
		return nil
	}
	if !sc.peek('{') {
		return sc.fail(`"usage" is not an object`)
	}
	c.hasUsage = true
	return sc.object(func(name []byte) error {
		switch string(name) {
		case "prompt_tokens":
			return sc.count(&c.prompt)
		case "completion_tokens":
			return sc.count(&c.completion)
		case "prompt_tokens_details":
			return sc.promptDetails(c)
		}
		return sc.skip(0)
	})
}

// promptDetails reads usage.prompt_tokens_details: the prompt tokens the
// server served from its prefix cache, a per-request witness the warm-cache
// hazard uses besides the server's own counters.
func (sc *jsonScanner) promptDetails(c *chunk) error {
	if sc.null() {
		return nil
	}
	if !sc.peek('{') {
		return sc.fail(`"prompt_tokens_details" is not an object`)
	}
	return sc.object(func(name []byte) error {
		if string(name) == "cached_tokens" {
			c.hasCached = !sc.peek('n')
			return sc.count(&c.cached)
		}
		return sc.skip(0)
	})
}

// count reads a non-negative integer token count.
func (sc *jsonScanner) count(n *int) error {
	if sc.null() {
		return nil
	}
	at := sc.i
	if sc.i < len(sc.b) && sc.b[sc.i] != '-' && (sc.b[sc.i] < '0' || sc.b[sc.i] > '9') {
		return sc.fail("token count is not a non-negative integer")
	}
	text, err := sc.number()
	if err != nil {
		return err
	}
	v, perr := strconv.Atoi(string(text))
	if perr != nil || v < 0 {
		sc.i = at
		return sc.fail("token count is not a non-negative integer")
	}
	*n = v
	return nil
}

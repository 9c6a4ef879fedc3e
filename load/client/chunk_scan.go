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

func (sc *jsonScanner) fail(reason string) error {
	return &malformedError{offset: sc.i, reason: reason}
}

func (sc *jsonScanner) ws() {
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// peek skips white space and reports whether the next byte is c.
func (sc *jsonScanner) peek(c byte) bool {
	sc.ws()
	return sc.i < len(sc.b) && sc.b[sc.i] == c
}

// null consumes a null literal if one is next.
func (sc *jsonScanner) null() bool {
	if sc.peek('n') && len(sc.b)-sc.i >= 4 && string(sc.b[sc.i:sc.i+4]) == "null" {
		sc.i += 4
		return true
	}
	return false
}

// object reads an object (the next byte is '{'), calling member with each
// name; member must consume the value.
func (sc *jsonScanner) object(member func(name []byte) error) error {
	sc.i++ // '{'
	if sc.peek('}') {
		sc.i++
		return nil
	}
	for {
		if !sc.peek('"') {
			return sc.fail("expected a member name")
		}
		name, err := sc.str()
		if err != nil {
			return err
		}
		if !sc.peek(':') {
			return sc.fail("expected ':'")
		}
		sc.i++
		sc.ws()
		if err := member(name); err != nil {
			return err
		}
		sc.ws()
		if sc.i >= len(sc.b) {
			return sc.fail("unterminated object")
		}
		switch sc.b[sc.i] {
		case ',':
			sc.i++
		case '}':
			sc.i++
			return nil
		default:
			return sc.fail("expected ',' or '}'")
		}
	}
}

// array reads an array (the next byte is '['), calling elem for each
// element; elem must consume it.
func (sc *jsonScanner) array(elem func() error) error {
	sc.i++ // '['
	if sc.peek(']') {
		sc.i++
		return nil
	}
	for {
		sc.ws()
		if err := elem(); err != nil {
			return err
		}
		sc.ws()
		if sc.i >= len(sc.b) {
			return sc.fail("unterminated array")
		}
		switch sc.b[sc.i] {
		case ',':
			sc.i++
		case ']':
			sc.i++
			return nil
		default:
			return sc.fail("expected ',' or ']'")
		}
	}
}

// str reads a string (the next byte is '"') and returns its raw contents,
// escapes not decoded.
func (sc *jsonScanner) str() ([]byte, error) {
	sc.i++ // '"'
	start := sc.i
	for sc.i < len(sc.b) {
		c := sc.b[sc.i]
		switch {
		case c == '"':
			s := sc.b[start:sc.i]
			sc.i++
			return s, nil
		case c == '\\':
			if sc.i+1 >= len(sc.b) {
				return nil, sc.fail("unterminated string")
			}
			switch sc.b[sc.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				sc.i += 2
			case 'u':
				if sc.i+6 > len(sc.b) || !isHex4(sc.b[sc.i+2:sc.i+6]) {
					return nil, sc.fail(`bad \u escape`)
				}
				sc.i += 6
			default:
				return nil, sc.fail("bad escape")
			}
		case c < 0x20:
			return nil, sc.fail("control character in string")
		default:
			sc.i++
		}
	}
	return nil, sc.fail("unterminated string")
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
func (sc *jsonScanner) number() ([]byte, error) {
	start := sc.i
	digits := func() int {
		n := 0
		for sc.i < len(sc.b) && '0' <= sc.b[sc.i] && sc.b[sc.i] <= '9' {
			sc.i++
			n++
		}
		return n
	}
	if sc.i < len(sc.b) && sc.b[sc.i] == '-' {
		sc.i++
	}
	if sc.i < len(sc.b) && sc.b[sc.i] == '0' {
		sc.i++
	} else if digits() == 0 {
		return nil, sc.fail("bad number")
	}
	if sc.i < len(sc.b) && sc.b[sc.i] == '.' {
		sc.i++
		if digits() == 0 {
			return nil, sc.fail("bad number")
		}
	}
	if sc.i < len(sc.b) && (sc.b[sc.i] == 'e' || sc.b[sc.i] == 'E') {
		sc.i++
		if sc.i < len(sc.b) && (sc.b[sc.i] == '+' || sc.b[sc.i] == '-') {
			sc.i++
		}
		if digits() == 0 {
			return nil, sc.fail("bad number")
		}
	}
	return sc.b[start:sc.i], nil
}

// skip validates and consumes any value.
func (sc *jsonScanner) skip(depth int) error {
	if depth > maxJSONDepth {
		return sc.fail("nested too deeply")
	}
	sc.ws()
	if sc.i >= len(sc.b) {
		return sc.fail("expected a value")
	}
	switch c := sc.b[sc.i]; {
	case c == '{':
		return sc.object(func([]byte) error { return sc.skip(depth + 1) })
	case c == '[':
		return sc.array(func() error { return sc.skip(depth + 1) })
	case c == '"':
		_, err := sc.str()
		return err
	case c == '-' || '0' <= c && c <= '9':
		_, err := sc.number()
		return err
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(sc.b)-sc.i >= len(lit) && string(sc.b[sc.i:sc.i+len(lit)]) == lit {
			sc.i += len(lit)
			return nil
		}
	}
	return sc.fail("expected a value")
}

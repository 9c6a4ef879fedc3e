package client

import "bytes"

// streamReader is what reading one response needs, pooled: the SSE
// reader's buffers and the event template.
type streamReader struct {
	sse  *SSEReader
	tmpl eventTemplate
}

// eventTemplate reads a stream's token events without parsing each one
// whole. A server sends the same event again and again with only the
// token's text changed (vLLM's id, created time, model and the members
// after the text stay the same for a request), so once one event has been
// parsed in full, the next is the same event when it starts with the same
// bytes up to the text's opening quote, ends with the same bytes from its
// closing quote, and what lies between is a valid JSON string. Then it
// parses as the template did, save for whether the text is empty: the
// scanner reads the same bytes before and after in the same state, and a
// string's content moves nothing else. Anything else (the usage event, an
// error, a new shape) is parsed in full and may become the template.
type eventTemplate struct {
	buf      []byte // pre, then suf
	pre, suf int    // their lengths in buf
	ok       bool
}

// match reads data through the template: tokens is whether its text is
// non-empty, ok whether the template applied (when not, parse in full).
func (t *eventTemplate) match(data []byte) (tokens, ok bool) {
	if !t.ok || len(data) < t.pre+t.suf ||
		!bytes.Equal(data[:t.pre], t.buf[:t.pre]) ||
		!bytes.Equal(data[len(data)-t.suf:], t.buf[t.pre:t.pre+t.suf]) {
		return false, false
	}
	// The text, from its opening quote (the prefix's last byte) to its
	// closing one (the suffix's first): it must end exactly there.
	p := jsonScanner{b: data[:len(data)-t.suf+1], i: t.pre - 1}
	s, err := p.str()
	if err != nil || p.i != len(p.b) {
		return false, false
	}
	return len(s) > 0, true
}

// learn makes data, just parsed in full into c, the template when it is a
// plain token event: one token text, a string, and no usage or error.
func (t *eventTemplate) learn(data []byte, c *chunk) {
	if c.texts != 1 || c.textEnd == 0 || c.hasUsage || c.failed || c.stopped {
		return
	}
	t.pre, t.suf = c.textAt+1, len(data)-c.textEnd+1
	t.buf = append(append(t.buf[:0], data[:t.pre]...), data[c.textEnd-1:]...)
	t.ok = true
}

// reset forgets the template: the next stream is another request's.
func (t *eventTemplate) reset() { t.ok = false }

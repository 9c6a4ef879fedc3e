package client

import (
	"bytes"
	"errors"
	"io"
)

// MaxSSELine bounds one line of a server-sent event stream, and the data of
// one event. A server that sends more without a line break is broken, and
// the reader says so rather than grow without end.
const MaxSSELine = 64 << 20

// ErrSSELineTooLong is returned by SSEReader.Next when a line, or the data
// of one event, exceeds MaxSSELine.
var ErrSSELineTooLong = errors.New("sse: line or event data longer than 64 MiB")

const sseInitialBuffer = 4 << 10

// SSEReader reads the data of server-sent events (the text/event-stream
// format) from a stream. It is small and allocation-free once its buffers
// have grown to the largest event seen; it does not use bufio.Scanner, so an
// event of any size up to MaxSSELine is fine.
//
// Lines may end in CRLF, LF or CR. Lines starting with ':' are comments.
// "data:" fields, with or without a space after the colon, are joined with
// "\n"; "event:", "id:", "retry:" and unknown fields are ignored. A blank
// line ends an event; an event whose data is empty is skipped. At a clean
// end of the stream, a pending event (one not followed by a blank line) is
// still returned, and so is a final line with no line ending: a server that
// closes the stream after its last event has said all it had to say.
type SSEReader struct {
	r   io.Reader
	buf []byte // buf[start:end] is read but not yet consumed
	// start, end index buf; scanned is how far past start no line ending
	// was found, so a long line is searched once, not once per read.
	start, end, scanned int
	// skipLF is set after a line ended in CR at the end of the buffer: if
	// the next byte is LF, it belongs to that CR.
	skipLF  bool
	data    []byte // the current event's data lines, joined by "\n"
	hasData bool   // a data field was seen in the current event
	err     error  // sticky read error
	limit   int    // MaxSSELine; smaller in tests
}

// NewSSEReader returns a reader of the events in r.
func NewSSEReader(r io.Reader) *SSEReader {
	return &SSEReader{r: r, buf: make([]byte, sseInitialBuffer), limit: MaxSSELine}
}

// Reset makes the reader read from r, keeping its buffers.
func (s *SSEReader) Reset(r io.Reader) {
	s.r = r
	s.start, s.end, s.scanned = 0, 0, 0
	s.skipLF = false
	s.data = s.data[:0]
	s.hasData = false
	s.err = nil
}

// Next returns the data of the next event, skipping comments and events
// with no data. It returns io.EOF at a clean end of the stream, and the
// underlying reader's error otherwise. The returned slice is valid until the
// next call.
func (s *SSEReader) Next() ([]byte, error) {
	if d := s.single(); d != nil {
		return d, nil
	}
	s.data = s.data[:0]
	s.hasData = false
	for {
		line, err := s.line()
		if err != nil {
			if err == io.EOF && len(s.data) > 0 {
				// The stream ended without a blank line after the last
				// event: return it, then EOF on the next call.
				return s.data, nil
			}
			return nil, err
		}
		if len(line) == 0 {
			if len(s.data) > 0 {
				return s.data, nil
			}
			s.hasData = false
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		if string(name) != "data" {
			continue
		}
		if s.hasData {
			s.data = append(s.data, '\n')
		}
		if len(s.data)+len(value) > s.limit {
			s.err = ErrSSELineTooLong
			return nil, s.err
		}
		s.data = append(s.data, value...)
		s.hasData = true
	}
}

// single returns the next event without copying it when it is the common
// case, already whole in the buffer: one "data:" line ending in LF, then a
// blank line ending in LF. Anything else (comments, other fields, several
// data lines, CR endings, empty data, an event not yet all read) returns
// nil and goes the general way, which reads it exactly as this does.
func (s *SSEReader) single() []byte {
	if s.skipLF || s.scanned != 0 {
		return nil
	}
	b := s.buf[s.start:s.end]
	if len(b) < 8 || string(b[:5]) != "data:" {
		return nil
	}
	i := bytes.IndexByte(b, '\n')
	if i < 0 || i+1 >= len(b) || b[i+1] != '\n' || bytes.IndexByte(b[:i], '\r') >= 0 {
		return nil
	}
	v := b[5:i]
	if len(v) > 0 && v[0] == ' ' {
		v = v[1:]
	}
	if len(v) == 0 || len(v) > s.limit {
		return nil
	}
	s.start += i + 2
	return v
}

// line returns the next line without its ending. At the end of the stream a
// final line with no ending is returned before io.EOF.
func (s *SSEReader) line() ([]byte, error) {
	for {
		if s.skipLF && s.start < s.end {
			if s.buf[s.start] == '\n' {
				s.start++
			}
			s.skipLF = false
		}
		avail := s.buf[s.start+s.scanned : s.end]
		if i := lineEnd(avail); i >= 0 {
			i += s.start + s.scanned
			line := s.buf[s.start:i]
			s.start = i + 1
			s.scanned = 0
			if s.buf[i] == '\r' {
				if s.start < s.end {
					if s.buf[s.start] == '\n' {
						s.start++
					}
				} else {
					s.skipLF = true
				}
			}
			return line, nil
		}
		s.scanned = s.end - s.start
		if s.err != nil {
			if s.end > s.start {
				line := s.buf[s.start:s.end]
				s.start, s.scanned = s.end, 0
				return line, nil
			}
			return nil, s.err
		}
		if s.scanned > s.limit {
			s.err = ErrSSELineTooLong
			return nil, s.err
		}
		s.fill()
	}
}

// lineEnd returns the index of the first CR or LF in b, or -1.
func lineEnd(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	return i
}

// fill reads more into the buffer, moving unconsumed bytes to the front or
// growing the buffer when it is full.
func (s *SSEReader) fill() {
	if s.start > 0 {
		n := copy(s.buf, s.buf[s.start:s.end])
		s.start, s.end = 0, n
	}
	if s.end == len(s.buf) {
		grown := make([]byte, 2*len(s.buf))
		copy(grown, s.buf[:s.end])
		s.buf = grown
	}
	// A reader may return (0, nil); try a few times before calling it stuck.
	for range 100 {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	s.err = io.ErrNoProgress
}

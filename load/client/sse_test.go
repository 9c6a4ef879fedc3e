package client

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// readAllEvents reads every event of r, returning the events and the error
// that ended the stream (nil for a clean end).
func readAllEvents(r *SSEReader) ([]string, error) {
	var events []string
	for {
		data, err := r.Next()
		if err == io.EOF {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		events = append(events, string(data))
	}
}

// referenceSSE is a plain reading of the same rules as SSEReader, written for
// clarity rather than speed: split into lines at CRLF, CR or LF (a last line
// without an ending counts), then gather data fields into events.
func referenceSSE(in string) []string {
	var lines []string
	for len(in) > 0 {
		i := strings.IndexAny(in, "\r\n")
		if i < 0 {
			lines = append(lines, in)
			break
		}
		lines = append(lines, in[:i])
		if strings.HasPrefix(in[i:], "\r\n") {
			in = in[i+2:]
		} else {
			in = in[i+1:]
		}
	}
	var events []string
	var data []string
	flush := func() {
		if d := strings.Join(data, "\n"); d != "" {
			events = append(events, d)
		}
		data = nil
	}
	for _, line := range lines {
		switch {
		case line == "":
			flush()
		case line[0] == ':':
		default:
			name, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			if name == "data" {
				data = append(data, value)
			}
		}
	}
	flush()
	return events
}

func TestSSEReader(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	huge := strings.Repeat("y", 5<<20)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"LF", "data: a\n\ndata: b\n\n", []string{"a", "b"}},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}},
		{"CR", "data: a\r\rdata: b\r\r", []string{"a", "b"}},
		{"mixed endings", "data: a\r\n\ndata: b\r\rdata: c\n\r\n", []string{"a", "b", "c"}},
		{"no space after colon", "data:a\n\n", []string{"a"}},
		{"only one space removed", "data:  a \n\n", []string{" a "}},
		{"comments", ": ping\n\n: keep-alive\ndata: a\n: between\n\n", []string{"a"}},
		{"multi-line data", "data: a\ndata: b\ndata:\n\n", []string{"a\nb\n"}},
		{"other fields ignored", "event: message\nid: 7\nretry: 10\ndata: a\nfoo\n\n", []string{"a"}},
		{"field without colon", "data\n\ndata: a\n\n", []string{"a"}},
		{"empty events skipped", "\n\n\ndata:\n\nevent: x\n\ndata: a\n\n", []string{"a"}},
		{"DONE is data", "data: {}\n\ndata: [DONE]\n\n", []string{"{}", "[DONE]"}},
		{"missing DONE", "data: {\"a\":1}\n\n", []string{`{"a":1}`}},
		{"no blank line at end", "data: a\n\ndata: b\n", []string{"a", "b"}},
		{"partial final line", "data: a\n\ndata: b", []string{"a", "b"}},
		{"CR at the very end", "data: a\r", []string{"a"}},
		{"empty stream", "", nil},
		{"many events in one read", strings.Repeat("data: {\"a\":1}\n\n", 40) + "data: [DONE]\n\n", append(slices.Repeat([]string{`{"a":1}`}, 40), "[DONE]")},
		{"whole events between others", "data: a\n\ndata: b\ndata: c\n\ndata: d\n\n: x\ndata: e\n\ndata: f\n\r\ndata: g\n\n", []string{"a", "b\nc", "d", "e", "f", "g"}},
		{"1 MiB event", "data: " + big + "\n\ndata: z\n\n", []string{big, "z"}},
		{"5 MiB event, CRLF", "data: " + huge + "\r\n\r\n", []string{huge}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ref := referenceSSE(tt.in); !equalStrings(ref, tt.want) {
				t.Fatalf("reference parser disagrees with the table: %q", ref)
			}
			for _, mode := range []string{"whole", "one byte", "half"} {
				var r io.Reader = strings.NewReader(tt.in)
				switch mode {
				case "one byte":
					if len(tt.in) > 1<<16 {
						continue
					}
					r = iotest.OneByteReader(r)
				case "half":
					r = iotest.HalfReader(r)
				}
				got, err := readAllEvents(NewSSEReader(r))
				if err != nil {
					t.Fatalf("%s: %v", mode, err)
				}
				if !equalStrings(got, tt.want) {
					t.Fatalf("%s: got %d events %.80q, want %d %.80q", mode, len(got), got, len(tt.want), tt.want)
				}
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSSEReaderReadErrorIsReturned(t *testing.T) {
	broken := errors.New("connection reset")
	r := NewSSEReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(broken)))
	got, err := readAllEvents(r)
	if !errors.Is(err, broken) {
		t.Fatalf("err = %v, want the reader's error", err)
	}
	// The half-read event after the break is not returned as if complete.
	if !equalStrings(got, []string{"a"}) {
		t.Fatalf("events = %q, want [a]", got)
	}
}

func TestSSEReaderLineBound(t *testing.T) {
	r := NewSSEReader(strings.NewReader("data: " + strings.Repeat("z", 5000) + "\n\n"))
	r.limit = 4096
	if _, err := r.Next(); !errors.Is(err, ErrSSELineTooLong) {
		t.Fatalf("long line: err = %v, want ErrSSELineTooLong", err)
	}
	// Many short data lines add up to one event over the bound.
	r = NewSSEReader(strings.NewReader(strings.Repeat("data: "+strings.Repeat("z", 100)+"\n", 50) + "\n"))
	r.limit = 4096
	if _, err := r.Next(); !errors.Is(err, ErrSSELineTooLong) {
		t.Fatalf("long event: err = %v, want ErrSSELineTooLong", err)
	}
}

func TestSSEReaderReset(t *testing.T) {
	r := NewSSEReader(strings.NewReader("data: a\n\ndata: partial"))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	r.Reset(strings.NewReader("data: b\n\n"))
	got, err := readAllEvents(r)
	if err != nil || !equalStrings(got, []string{"b"}) {
		t.Fatalf("after Reset: %q, %v", got, err)
	}
}

// stuckReader returns no bytes and no error, for ever.
type stuckReader struct{}

func (stuckReader) Read([]byte) (int, error) { return 0, nil }

func TestSSEReaderNoProgress(t *testing.T) {
	if _, err := NewSSEReader(stuckReader{}).Next(); !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("err = %v, want io.ErrNoProgress", err)
	}
}

func ExampleSSEReader() {
	stream := "data: {\"choices\":[{\"text\":\"Hi\"}]}\r\n\r\n: keep-alive\r\n\r\ndata: [DONE]\r\n\r\n"
	r := NewSSEReader(strings.NewReader(stream))
	for {
		data, err := r.Next()
		if err != nil {
			break
		}
		fmt.Println(string(data))
	}
	// Output:
	// {"choices":[{"text":"Hi"}]}
	// [DONE]
}

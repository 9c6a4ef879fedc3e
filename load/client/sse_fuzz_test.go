package client

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzSSEReader checks that the reader never panics and agrees with the
// reference parser, whatever the input and however it is split into reads.
func FuzzSSEReader(f *testing.F) {
	for _, seed := range []string{
		"data: a\n\n",
		"data: a\r\n\r\ndata: b\r\r",
		": c\ndata:x\ndata: y\n\nevent: e\nid: 1\n\n",
		"data: {\"choices\":[{\"text\":\" w\"}]}\n\ndata: [DONE]\n\n",
		"data: a\r",
		"\r\n\r\ndata",
		"data: partial",
		"data:\n\ndata:\ndata:\n\n",
		// Many whole events in one read, read without a copy, then ones
		// the general path must take: split across reads, CR endings, two
		// data lines, an empty one.
		"data: a\n\ndata: b\n\ndata:c\n\ndata: d\n\ndata: e\n\n",
		"data: a\n\ndata: b\n\ndata: c\r\n\r\ndata: d\n\r\ndata: e\ndata: f\n\ndata:\n\n",
		"data: a\n\ndata: b\n\n: c\n\nid: 1\ndata: d\n\ndata",
	} {
		f.Add(seed, uint8(3))
	}
	f.Fuzz(func(t *testing.T, in string, bufSize uint8) {
		want := referenceSSE(in)
		for _, oneByte := range []bool{false, true} {
			var src io.Reader = strings.NewReader(in)
			if oneByte {
				src = iotest.OneByteReader(src)
			}
			r := NewSSEReader(src)
			r.buf = make([]byte, int(bufSize%16)+1) // exercise growth and compaction
			got, err := readAllEvents(r)
			if err != nil {
				t.Fatalf("oneByte=%v: %v", oneByte, err)
			}
			if !equalStrings(got, want) {
				t.Fatalf("oneByte=%v: got %q, reference %q", oneByte, got, want)
			}
		}
	})
}

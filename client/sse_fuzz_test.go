package client

import (
	"encoding/json"
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

// FuzzParseChunk checks that the event parser never panics and accepts
// exactly the JSON objects encoding/json calls valid.
func FuzzParseChunk(f *testing.F) {
	for _, seed := range []string{
		`{"choices":[{"index":0,"text":" w","logprobs":null,"finish_reason":null}],"usage":null}`,
		`{"choices":[{"delta":{"role":"assistant","content":""}}]}`,
		`{"choices":[{"delta":{"reasoning_content":"hm"}}]}`,
		`{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":20,"total_tokens":32}}`,
		`{"error":{"message":"boom","code":500}}`,
		`{"object":"error","message":"boom"}`,
		`{"choices":[{"text":"\u00e9\n"}],"x":[1,-2.5e3,true,false,null,{"y":"z"}]}`,
		`{"choices":[{"text":" w"}`,
		`[1,2]`,
		`{"a":01}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c chunk
		err := parseChunk(data, &c)
		valid := json.Valid(data) && deepestNesting(data) < maxJSONDepth
		if err == nil && !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		if err != nil && valid && !strings.HasPrefix(strings.TrimLeft(string(data), " \t\r\n"), "{") {
			return // valid JSON but not an object: rightly refused
		}
		if err != nil && valid {
			// Valid JSON: only a wrongly shaped known member may be refused.
			var shape struct {
				Choices json.RawMessage `json:"choices"`
				Usage   json.RawMessage `json:"usage"`
			}
			if json.Unmarshal(data, &shape) != nil {
				return
			}
			if _, isShape := err.(*malformedError); !isShape {
				t.Fatalf("refused valid JSON %q with %v", data, err)
			}
			if !strings.Contains(err.Error(), "not") && !strings.Contains(err.Error(), "token count") {
				t.Fatalf("refused valid JSON %q: %v", data, err)
			}
		}
	})
}

// deepestNesting is a rough bound on nesting depth (brackets in strings
// count too, which only makes it larger).
func deepestNesting(b []byte) int {
	depth, deepest := 0, 0
	for _, c := range b {
		switch c {
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	return deepest
}

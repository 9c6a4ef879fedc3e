package client

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/workload"
)

const (
	tmplPre = `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":`
	tmplSuf = `,"logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`
	chatPre = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":`
	chatSuf = `},"logprobs":null,"finish_reason":null}]}`
)

// templateSeeds are a first event (the template, when it is a plain token
// event) and what a later event holds between the template's prefix and
// suffix: its text, quotes included, or anything else.
var templateSeeds = [][2]string{
	{tmplPre + `" a"` + tmplSuf, `" b"`},
	{tmplPre + `" a"` + tmplSuf, `""`},
	{tmplPre + `""` + tmplSuf, `"x"`},
	{tmplPre + `" a"` + tmplSuf, `"\"q\\"`},
	{tmplPre + `" a"` + tmplSuf, `"\u00e9\n"`},
	{tmplPre + `" a"` + tmplSuf, `"a","x":"`}, // a quote ends the text early
	{tmplPre + `" a"` + tmplSuf, `"a\"`},      // the closing quote escaped
	{tmplPre + `" a"` + tmplSuf, "\"a\tb\""},  // a raw control character
	{tmplPre + `" a"` + tmplSuf, `"\x"`},      // a bad escape
	{tmplPre + `" a"` + tmplSuf, `"\u12"`},    // a short \u escape
	{tmplPre + `" a"` + tmplSuf, `null`},      // not a string
	{tmplPre + `" a"` + tmplSuf, `"`},         // the quotes overlap
	{tmplPre + `" a"` + tmplSuf, ``},
	{chatPre + `"a"` + chatSuf, `"b"`},
	{`{"choices":[{"delta":{"reasoning_content":"a","content":""}}]}`, `"b"`},
	{`{"choices":[{"text":"a"},{"text":"b"}]}`, `""`},
	{`{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`, `"b"`},
	{`{"object":"error","choices":[{"text":"a"}]}`, `"b"`},
	{`{"choices":[{"text":"a"}]}`, `"a""`},
	{`{"choices":[{"text":"a"}]} `, `"b"`},
}

// FuzzEventTemplate checks the template against the full parse: whatever
// the first event taught it, an event it reads (the template's prefix, the
// fuzzed middle, its suffix; or the middle alone) must parse, in full, to
// the same chunk.
func FuzzEventTemplate(f *testing.F) {
	for _, s := range templateSeeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, first, middle []byte) {
		var tm eventTemplate
		var c chunk
		if parseChunk(first, &c) == nil {
			tm.learn(first, &c)
		}
		nexts := [][]byte{middle}
		if tm.ok {
			next := append(append(append([]byte(nil), tm.buf[:tm.pre-1]...), middle...), tm.buf[tm.pre+1:tm.pre+tm.suf]...)
			nexts = append(nexts, next)
		}
		for _, next := range nexts {
			tokens, ok := tm.match(next)
			var want chunk
			err := parseChunk(next, &want)
			if !ok {
				continue
			}
			if err != nil {
				t.Fatalf("template %q read %q, which does not parse: %v", first, next, err)
			}
			if want.tokens != tokens || want.hasUsage || want.failed || want.prompt != 0 || want.completion != 0 ||
				want.hasCached || want.message != nil {
				t.Fatalf("template %q read %q as tokens=%v; the full parse gives %+v", first, next, tokens, want)
			}
		}
	})
}

func TestEventTemplate(t *testing.T) {
	tests := []struct {
		first, next string
		ok, tokens  bool
	}{
		{tmplPre + `" a"` + tmplSuf, tmplPre + `" b"` + tmplSuf, true, true},
		{tmplPre + `" a"` + tmplSuf, tmplPre + `""` + tmplSuf, true, false},
		{tmplPre + `" a"` + tmplSuf, tmplPre + `"\"q\\"` + tmplSuf, true, true},
		{chatPre + `"a"` + chatSuf, chatPre + `"bc"` + chatSuf, true, true},
		{tmplPre + `" a"` + tmplSuf, tmplPre + `"a","x":"` + tmplSuf, false, false},
		{tmplPre + `" a"` + tmplSuf, tmplPre + `"a\"` + tmplSuf, false, false},
		{tmplPre + `" a"` + tmplSuf, tmplPre + "\"a\tb\"" + tmplSuf, false, false},
		{tmplPre + `" a"` + tmplSuf, tmplPre + `null` + tmplSuf, false, false},
		{tmplPre + `" a"` + tmplSuf, tmplPre, false, false},
		// Not templates: two token texts, usage, an error.
		{`{"choices":[{"delta":{"reasoning_content":"a","content":""}}]}`, `{"choices":[{"delta":{"reasoning_content":"a","content":"b"}}]}`, false, false},
		{`{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`, `{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`, false, false},
		{`{"object":"error","choices":[{"text":"a"}]}`, `{"object":"error","choices":[{"text":"b"}]}`, false, false},
	}
	for i, tt := range tests {
		var tm eventTemplate
		var c chunk
		if err := parseChunk([]byte(tt.first), &c); err != nil {
			t.Fatalf("%d: the first event does not parse: %v", i, err)
		}
		tm.learn([]byte(tt.first), &c)
		tokens, ok := tm.match([]byte(tt.next))
		if ok != tt.ok || tokens != tt.tokens {
			t.Errorf("%d: %q through %q: ok %v tokens %v, want %v %v", i, tt.next, tt.first, ok, tokens, tt.ok, tt.tokens)
		}
	}
}

// TestClientStreamThroughTemplate streams events that mostly match the
// first one's shape, with ones that must not be read through it, all in
// one write (many events per read): counts, gaps and classes come out as
// a full parse of each event gives them.
func TestClientStreamThroughTemplate(t *testing.T) {
	tok := func(text string) string { return "data: " + tmplPre + text + tmplSuf + "\n\n" }
	usage := "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":5}}\n\ndata: [DONE]\n\n"
	tests := []struct {
		name   string
		stream string
		class  ErrorClass
		events int
	}{
		{"texts vary", tok(`" a"`) + tok(`""`) + tok(`"\"b\\"`) + tok(`"\u00e9"`) + tok(`null`) + tok(`" c"`) + usage, "", 4},
		{"control character", tok(`" a"`) + tok("\"a\x01\"") + usage, ClassMalformed, 1},
		{"quote in text", tok(`" a"`) + tok(`"a"b"`) + usage, ClassMalformed, 1},
		{"error after tokens", tok(`" a"`) + tok(`" b"`) + "data: {\"error\":{\"message\":\"boom\"}}\n\n", ClassServerError, 2},
		{"shape changes", tok(`" a"`) + "data: " + chatPre + `"b"` + chatSuf + "\n\n" + tok(`" c"`) + usage, "", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, tt.stream)
			}))
			defer srv.Close()
			c := newTestClient(t, srv.URL, Config{})
			for range 2 { // the second time with pooled, used readers
				out, _ := doBounded(t, t.Context(), c, workload.Request{Prompt: "x", OutputTokens: 5})
				if out.Class != tt.class || out.TokenEvents != tt.events || len(out.ITL) != max(tt.events-1, 0) {
					t.Fatalf("class %q (%v), %d token events, %d gaps; want %q, %d", out.Class, out.Err, out.TokenEvents, len(out.ITL), tt.class, tt.events)
				}
				if tt.class == "" && (out.CompletionTokens != 5 || out.MultiTokenEvents != 5-tt.events) {
					t.Fatalf("completion %d, multi %d", out.CompletionTokens, out.MultiTokenEvents)
				}
				if tt.class == ClassServerError && !strings.Contains(out.Message, "boom") {
					t.Fatalf("message %q", out.Message)
				}
			}
		})
	}
}

// TestClientEventsOfOneReadArriveTogether: an event's arrival is the read
// that brought its last byte, so events that came in one read are one
// instant apart by nothing, and a pause between reads is the gap.
func TestClientEventsOfOneReadArriveTogether(t *testing.T) {
	const pause = 30 * time.Millisecond
	tok := "data: " + tmplPre + `" a"` + tmplSuf + "\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, tok+tok+tok)
		w.(http.Flusher).Flush()
		time.Sleep(pause)
		fmt.Fprint(w, tok+tok+"data: [DONE]\n\n")
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, Config{})
	out, _ := doBounded(t, t.Context(), c, workload.Request{Prompt: "x", OutputTokens: 5})
	if !out.OK() || len(out.ITL) != 4 {
		t.Fatalf("class %q (%v), %d gaps; want ok, 4", out.Class, out.Err, len(out.ITL))
	}
	if out.ITL[0] != 0 || out.ITL[1] != 0 || out.ITL[3] != 0 || out.ITL[2] < pause {
		t.Fatalf("gaps %v; want 0, 0, at least %v, 0", out.ITL, pause)
	}
	if got := out.Last.Sub(out.First); got != out.ITL[2] {
		t.Fatalf("last - first = %v, want the one gap %v", got, out.ITL[2])
	}
}

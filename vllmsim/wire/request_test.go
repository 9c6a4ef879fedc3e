package wire

import (
	"encoding/json"
	"testing"

	"github.com/llmslo/llmslo/vllmsim/tokenizer"
)

func TestDecodeRequest(t *testing.T) {
	// A user's "hi" through the chat template (its ids: tokenizer's tests).
	hiChat := tokenizer.ChatTokens([]tokenizer.ChatMessage{{Role: "user", Content: "hi"}})
	cases := []struct {
		body string
		chat bool
		want Request
	}{
		{`{"prompt":"a b  c","max_tokens":5,"stream":true,"stream_options":{"include_usage":true}}`, false,
			Request{Prompt: tokenizer.Tokenize("a b c"), MaxTokens: 5, Stream: true, IncludeUsage: true}},
		// max_completion_tokens is a chat parameter: completions ignore it
		// and default to 16, also for an explicit null.
		{`{"model":"m","prompt":[5,6,7],"max_completion_tokens":9,"min_tokens":2,"ignore_eos":true}`, false,
			Request{Model: "m", Prompt: []int32{5, 6, 7}, MaxTokens: 16, MinTokens: 2, IgnoreEOS: true}},
		{`{"prompt":[[1,2]]}`, false, Request{Prompt: []int32{1, 2}, MaxTokens: 16}},
		{`{"prompt":["x y"],"max_tokens":null}`, false, Request{Prompt: tokenizer.Tokenize("x y"), MaxTokens: 16}},
		{`{"messages":[{"role":"user","content":"hi"}],"max_completion_tokens":9,"max_tokens":3}`, true,
			Request{Prompt: hiChat, MaxTokens: 9}},
		{`{"messages":[{"role":"user","content":"hi"}]}`, true,
			Request{Prompt: hiChat, MaxTokens: -1}},
	}
	for _, c := range cases {
		got, err := DecodeRequest([]byte(c.body), c.chat)
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		gj, _ := json.Marshal(struct{ A any }{[]any{got.Model, got.Prompt, got.MaxTokens, got.MinTokens, got.IgnoreEOS, got.Stream, got.IncludeUsage}})
		wj, _ := json.Marshal(struct{ A any }{[]any{c.want.Model, c.want.Prompt, c.want.MaxTokens, c.want.MinTokens, c.want.IgnoreEOS, c.want.Stream, c.want.IncludeUsage}})
		if string(gj) != string(wj) {
			t.Fatalf("%s:\n got %s\nwant %s", c.body, gj, wj)
		}
	}
	for _, bad := range []string{`{`, `[]`, `{"prompt":""}`, `{"prompt":[1,"a"]}`, `{"prompt":[-1]}`, `{"prompt":[999999999]}`,
		`{"prompt":"a","stream_options":{"include_usage":true}}`, `{"prompt":["a","b"]}`, `{"prompt":"a","n":2}`,
		`{"prompt":"a","min_tokens":5,"max_tokens":2}`, `{"prompt":"a"} {}`} {
		if _, err := DecodeRequest([]byte(bad), false); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(`{"prompt":"a b c","max_tokens":5,"stream":true}`), false)
	f.Add([]byte(`{"prompt":[1,2,3],"min_tokens":1,"ignore_eos":true}`), false)
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"max_completion_tokens":3}`), true)
	f.Add([]byte(`{"prompt":[[1]],"stream_options":{"include_usage":true},"stream":true}`), false)
	f.Fuzz(func(t *testing.T, body []byte, chat bool) {
		r, err := DecodeRequest(body, chat)
		if err != nil {
			if _, ok := err.(*RequestError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if len(r.Prompt) == 0 {
			t.Fatal("accepted an empty prompt")
		}
		if r.MaxTokens != -1 && r.MaxTokens < 1 {
			t.Fatalf("accepted max_tokens %d", r.MaxTokens)
		}
		for _, id := range r.Prompt {
			if id < 0 || id >= tokenizer.VocabSize {
				t.Fatalf("token id %d out of range", id)
			}
		}
	})
}

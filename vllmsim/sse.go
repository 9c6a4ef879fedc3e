package vllmsim

import (
	"encoding/json"
	"strconv"
)

// chunkFormat renders one request's stream chunks in vLLM's JSON shapes. The
// constant parts are built once per request so that writing a token is a few
// appends; token texts never need JSON escaping (see outputWords).
type chunkFormat struct {
	chat     bool
	head     []byte // `data: {"id":…,"object":…,"created":…,"model":…,"choices":[`
	tokenPre []byte // `{"index":0,"text":"` or `{"index":0,"delta":{"content":"`
	tokenMid []byte // `","logprobs":null,"finish_reason":` or `"},"logprobs":null,"finish_reason":`
}

func newChunkFormat(chat bool, id string, created int64, model string) *chunkFormat {
	obj := "text_completion"
	if chat {
		obj = "chat.completion.chunk"
	}
	m, _ := json.Marshal(model)
	f := &chunkFormat{chat: chat}
	f.head = append(f.head, `data: {"id":"`+id+`","object":"`+obj+`","created":`+strconv.FormatInt(created, 10)+`,"model":`...)
	f.head = append(f.head, m...)
	f.head = append(f.head, `,"choices":[`...)
	if chat {
		f.tokenPre = []byte(`{"index":0,"delta":{"content":"`)
		f.tokenMid = []byte(`"},"logprobs":null,"finish_reason":`)
	} else {
		f.tokenPre = []byte(`{"index":0,"text":"`)
		f.tokenMid = []byte(`","logprobs":null,"finish_reason":`)
	}
	return f
}

// appendRole appends the chat stream's first chunk, which names the role.
func (f *chunkFormat) appendRole(dst []byte) []byte {
	dst = append(dst, f.head...)
	return append(dst, `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`+"\n\n"...)
}

// appendToken appends the chunk of one token; reason is empty except on the
// last token.
func (f *chunkFormat) appendToken(dst []byte, text, reason string) []byte {
	dst = append(dst, f.head...)
	dst = append(dst, f.tokenPre...)
	dst = append(dst, text...)
	dst = append(dst, f.tokenMid...)
	if reason == "" {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '"')
		dst = append(dst, reason...)
		dst = append(dst, '"')
	}
	if !f.chat {
		dst = append(dst, `,"stop_reason":null`...)
	}
	return append(dst, "}]}\n\n"...)
}

// appendUsage appends the include_usage chunk: no choices, only usage.
func (f *chunkFormat) appendUsage(dst []byte, prompt, completion int) []byte {
	dst = append(dst, f.head...)
	dst = append(dst, `],"usage":{"prompt_tokens":`...)
	dst = strconv.AppendInt(dst, int64(prompt), 10)
	dst = append(dst, `,"total_tokens":`...)
	dst = strconv.AppendInt(dst, int64(prompt+completion), 10)
	dst = append(dst, `,"completion_tokens":`...)
	dst = strconv.AppendInt(dst, int64(completion), 10)
	return append(dst, "}}\n\n"...)
}

func appendDone(dst []byte) []byte { return append(dst, "data: [DONE]\n\n"...) }

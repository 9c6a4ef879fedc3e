package wire

import (
	"encoding/json"
	"strconv"

	"github.com/llmslo/llmslo/vllmsim/tokenizer"
)

// ChunkFormat renders one request's stream chunks in vLLM's JSON shapes. The
// constant parts are built once per request so that writing a token is a few
// appends; token texts never need JSON escaping (see tokenizer.OutputText).
// Set its exported fields before the first append.
type ChunkFormat struct {
	chat     bool
	head     []byte // `{"id":…,"object":…,"created":…,"model":…,"choices":[`
	tokenPre []byte // `{"index":0,"text":"` or `{"index":0,"delta":{"content":"`
	tokenMid []byte // `","logprobs":null,"finish_reason":` or `"},"logprobs":null,"finish_reason":`
	// tokenEnd follows the finish reason: the members vLLM writes as
	// explicit nulls.
	tokenEnd    []byte
	Fingerprint string // system_fingerprint, on the final chunk
	EOL         string // SSE line ending ("\n" unless set)
	Comments    bool   // a ": ping" comment line before each event

	// With continuous_usage_stats, every token chunk carries the usage so
	// far; Prompt is its prompt_tokens.
	Continuous bool
	Prompt     int

	ErrData []byte // an in-stream error's data (StreamErrorBody)
}

// NewChunkFormat returns the format of the stream of response id, created
// at created (Unix seconds), for model; chat selects the chat API's shapes.
func NewChunkFormat(chat bool, id string, created int64, model string) *ChunkFormat {
	obj := "text_completion"
	if chat {
		obj = "chat.completion.chunk"
	}
	m, _ := json.Marshal(model)
	f := &ChunkFormat{chat: chat, EOL: "\n"}
	f.head = append(f.head, `{"id":"`+id+`","object":"`+obj+`","created":`+strconv.FormatInt(created, 10)+`,"model":`...)
	f.head = append(f.head, m...)
	f.head = append(f.head, `,"choices":[`...)
	if chat {
		f.tokenPre = []byte(`{"index":0,"delta":{"content":"`)
		f.tokenMid = []byte(`"},"logprobs":null,"finish_reason":`)
		f.tokenEnd = []byte(`,"stop_reason":null,"token_ids":null}]`)
	} else {
		f.tokenPre = []byte(`{"index":0,"text":"`)
		f.tokenMid = []byte(`","logprobs":null,"finish_reason":`)
		f.tokenEnd = []byte(`,"stop_reason":null,"prompt_token_ids":null,"token_ids":null}]`)
	}
	return f
}

// appendNoUsage ends a chunk's object where it carries no usage: vLLM's
// completion chunks say "usage":null, its chat chunks leave it out.
func (f *ChunkFormat) appendNoUsage(dst []byte) []byte {
	if f.chat {
		return dst
	}
	return append(dst, `,"usage":null`...)
}

// Chat reports whether the stream is the chat API's.
func (f *ChunkFormat) Chat() bool { return f.chat }

// open starts an event; close ends it.
func (f *ChunkFormat) open(dst []byte) []byte {
	if f.Comments {
		dst = append(dst, ": ping"...)
		dst = append(dst, f.EOL...)
	}
	return append(dst, "data: "...)
}

func (f *ChunkFormat) close(dst []byte) []byte {
	dst = append(dst, f.EOL...)
	return append(dst, f.EOL...)
}

// AppendRole appends the chat stream's first chunk, which names the role;
// with continuous_usage_stats it carries the usage so far, no completion
// token yet.
func (f *ChunkFormat) AppendRole(dst []byte) []byte {
	dst = append(f.open(dst), f.head...)
	dst = append(dst, `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null`...)
	dst = append(dst, f.tokenEnd...)
	if f.Continuous {
		dst = append(dst, `,"usage":`...)
		dst = appendUsageObject(dst, f.Prompt, 0, -1)
	}
	return f.close(append(dst, '}'))
}

// AppendEarly appends a chunk that carries no token: the role alone on the
// chat API, empty text on completions.
func (f *ChunkFormat) AppendEarly(dst []byte) []byte {
	dst = append(f.open(dst), f.head...)
	if f.chat {
		dst = append(dst, `{"index":0,"delta":{"role":"assistant"},"logprobs":null,"finish_reason":null`...)
	} else {
		dst = append(dst, `{"index":0,"text":"","logprobs":null,"finish_reason":null`...)
	}
	dst = f.appendNoUsage(append(dst, f.tokenEnd...))
	return f.close(append(dst, '}'))
}

// AppendEvent appends one event carrying the n tokens from, from+1, … of
// a request whose prompt hashes to h; reason is empty except on the last.
// A request that stopped ("stop") ended on its end-of-sequence token,
// which has no text: as in vLLM, the last chunk then carries empty text,
// while the usage counts the token.
func (f *ChunkFormat) AppendEvent(dst []byte, h uint64, from, n int, reason string) []byte {
	dst = append(f.open(dst), f.head...)
	dst = append(dst, f.tokenPre...)
	end := from + n
	if reason == "stop" {
		end--
	}
	for k := from; k < end; k++ {
		dst = append(dst, tokenizer.OutputText(h, k)...)
	}
	dst = append(dst, f.tokenMid...)
	if reason == "" {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '"')
		dst = append(dst, reason...)
		dst = append(dst, '"')
	}
	dst = append(dst, f.tokenEnd...)
	if f.Continuous {
		dst = append(dst, `,"usage":`...)
		dst = appendUsageObject(dst, f.Prompt, from+n, -1)
	} else {
		dst = f.appendNoUsage(dst)
	}
	if reason != "" && f.Fingerprint != "" {
		dst = append(dst, `,"system_fingerprint":"`...)
		dst = append(dst, f.Fingerprint...)
		dst = append(dst, '"')
	}
	return f.close(append(dst, '}'))
}

// AppendUsage appends the include_usage chunk: no choices, only usage.
// cached < 0 leaves prompt_tokens_details out.
func (f *ChunkFormat) AppendUsage(dst []byte, prompt, completion, cached int) []byte {
	dst = append(f.open(dst), f.head...)
	dst = append(dst, `],"usage":`...)
	dst = appendUsageObject(dst, prompt, completion, cached)
	return f.close(append(dst, '}'))
}

func appendUsageObject(dst []byte, prompt, completion, cached int) []byte {
	dst = append(dst, `{"prompt_tokens":`...)
	dst = strconv.AppendInt(dst, int64(prompt), 10)
	dst = append(dst, `,"total_tokens":`...)
	dst = strconv.AppendInt(dst, int64(prompt+completion), 10)
	dst = append(dst, `,"completion_tokens":`...)
	dst = strconv.AppendInt(dst, int64(completion), 10)
	if cached >= 0 {
		dst = append(dst, `,"prompt_tokens_details":{"cached_tokens":`...)
		dst = strconv.AppendInt(dst, int64(cached), 10)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// AppendMalformed appends an event whose data is a chunk cut off mid-object,
// as a truncating proxy would leave it: not JSON.
func (f *ChunkFormat) AppendMalformed(dst []byte) []byte {
	dst = append(f.open(dst), f.head...)
	return f.close(append(dst, `{"index":0,`...))
}

// AppendError appends the event vLLM sends in place of the next chunk when
// generation fails mid-stream (a GenerationError), before data: [DONE];
// ErrData is its JSON in the server's error format (StreamErrorBody).
func (f *ChunkFormat) AppendError(dst []byte) []byte {
	return f.close(append(f.open(dst), f.ErrData...))
}

// AppendDone appends the stream's last event, data: [DONE].
func (f *ChunkFormat) AppendDone(dst []byte) []byte {
	return f.close(append(f.open(dst), "[DONE]"...))
}

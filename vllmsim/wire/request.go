package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llmslo/llmslo/vllmsim/tokenizer"
)

// Request is a decoded /v1/completions or /v1/chat/completions body.
type Request struct {
	Model        string
	Prompt       []int32 // token ids (package tokenizer)
	MaxTokens    int     // -1 when the client gave none
	MinTokens    int
	IgnoreEOS    bool
	Stream       bool
	IncludeUsage bool
	// ContinuousUsage puts the usage so far on every chunk
	// (stream_options.continuous_usage_stats, with include_usage).
	ContinuousUsage bool
}

type wireRequest struct {
	Model               string          `json:"model"`
	Prompt              json.RawMessage `json:"prompt"`
	Messages            json.RawMessage `json:"messages"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	MinTokens           *int            `json:"min_tokens"`
	IgnoreEOS           bool            `json:"ignore_eos"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage         bool `json:"include_usage"`
		ContinuousUsageStats bool `json:"continuous_usage_stats"`
	} `json:"stream_options"`
	N *int `json:"n"`
}

// DecodeRequest parses a request body; chat selects the chat shape
// (messages) over the completions shape (prompt). Its errors are
// *RequestError.
func DecodeRequest(body []byte, chat bool) (Request, error) {
	var w wireRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&w); err != nil {
		return Request{}, BadRequest("invalid JSON body: " + err.Error())
	}
	if dec.More() {
		return Request{}, BadRequest("invalid JSON body: trailing data after the object")
	}
	r := Request{Model: w.Model, MaxTokens: -1, IgnoreEOS: w.IgnoreEOS, Stream: w.Stream}
	if w.StreamOptions != nil {
		if !w.Stream {
			return r, BadRequest("Stream options can only be defined when `stream=True`.")
		}
		r.IncludeUsage = w.StreamOptions.IncludeUsage
		r.ContinuousUsage = r.IncludeUsage && w.StreamOptions.ContinuousUsageStats
	}
	if w.N != nil && *w.N != 1 {
		return r, BadRequest("only n=1 is supported")
	}
	// vLLM's defaults: 16 tokens on /v1/completions, also for an explicit
	// null; on chat, the rest of the context. max_completion_tokens is a
	// chat parameter only (the completions API ignores it).
	switch {
	case chat && w.MaxCompletionTokens != nil:
		r.MaxTokens = *w.MaxCompletionTokens
	case w.MaxTokens != nil:
		r.MaxTokens = *w.MaxTokens
	case !chat:
		r.MaxTokens = DefaultCompletionMaxTokens
	}
	if r.MaxTokens != -1 && r.MaxTokens < 1 {
		return r, BadRequest(fmt.Sprintf("max_tokens must be at least 1, got %d.", r.MaxTokens))
	}
	if w.MinTokens != nil {
		if *w.MinTokens < 0 {
			return r, BadRequest(fmt.Sprintf("min_tokens must be greater than or equal to 0, got %d.", *w.MinTokens))
		}
		if r.MaxTokens != -1 && *w.MinTokens > r.MaxTokens {
			return r, BadRequest(fmt.Sprintf("min_tokens must be less than or equal to max_tokens=%d, got %d.", r.MaxTokens, *w.MinTokens))
		}
		r.MinTokens = *w.MinTokens
	}
	var err error
	if chat {
		var msgs []tokenizer.ChatMessage
		msgs, err = DecodeMessages(w.Messages)
		if err == nil {
			r.Prompt = tokenizer.ChatTokens(msgs)
		}
	} else {
		r.Prompt, err = DecodePrompt(w.Prompt)
	}
	if err != nil {
		return r, err
	}
	if len(r.Prompt) == 0 {
		return r, BadRequest("The prompt cannot be empty.")
	}
	return r, nil
}

// DecodePrompt reads a completions prompt: a string, a list of token ids,
// or a list of one of either.
func DecodePrompt(raw json.RawMessage) ([]int32, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, BadRequest("field required: prompt")
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return tokenizer.Tokenize(text), nil
	}
	var ids []int64
	if json.Unmarshal(raw, &ids) == nil {
		return checkIDs(ids)
	}
	var texts []string
	if json.Unmarshal(raw, &texts) == nil {
		if len(texts) != 1 {
			return nil, BadRequest(fmt.Sprintf("prompt: a list of %d prompts; the simulator takes one", len(texts)))
		}
		return tokenizer.Tokenize(texts[0]), nil
	}
	var idLists [][]int64
	if json.Unmarshal(raw, &idLists) == nil {
		if len(idLists) != 1 {
			return nil, BadRequest(fmt.Sprintf("prompt: a list of %d prompts; the simulator takes one", len(idLists)))
		}
		return checkIDs(idLists[0])
	}
	return nil, BadRequest("prompt: must be a string, a list of token ids, or a list of one of either")
}

func checkIDs(ids []int64) ([]int32, error) {
	out := make([]int32, len(ids))
	for i, id := range ids {
		if id < 0 || id >= tokenizer.VocabSize {
			return nil, BadRequest(fmt.Sprintf("Token id %d is out of vocabulary", id))
		}
		out[i] = int32(id)
	}
	return out, nil
}

// DecodeMessages reads chat messages whose content is a string or a list of
// {"type":"text","text":...} parts.
func DecodeMessages(raw json.RawMessage) ([]tokenizer.ChatMessage, error) {
	var wire []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, BadRequest("field required: messages")
	}
	if err := json.Unmarshal(raw, &wire); err != nil {
		return nil, BadRequest("messages: " + err.Error())
	}
	if len(wire) == 0 {
		return nil, BadRequest("messages: at least one message is required")
	}
	out := make([]tokenizer.ChatMessage, len(wire))
	for i, m := range wire {
		if m.Role == "" {
			return nil, BadRequest(fmt.Sprintf("messages[%d].role: field required", i))
		}
		out[i].Role = m.Role
		c := bytes.TrimSpace(m.Content)
		if len(c) == 0 || string(c) == "null" {
			continue
		}
		if json.Unmarshal(c, &out[i].Content) == nil {
			continue
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(c, &parts); err != nil {
			return nil, BadRequest(fmt.Sprintf("messages[%d].content: must be a string or a list of text parts", i))
		}
		var b strings.Builder
		for _, p := range parts {
			if p.Type != "text" {
				return nil, BadRequest(fmt.Sprintf("messages[%d].content: part type %q is not supported", i, p.Type))
			}
			b.WriteString(p.Text)
			b.WriteByte('\n')
		}
		out[i].Content = b.String()
	}
	return out, nil
}

// DefaultCompletionMaxTokens is max_tokens on /v1/completions when the
// request gives none, as in vLLM (and OpenAI's legacy completions API).
const DefaultCompletionMaxTokens = 16

package vllmsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// genRequest is a decoded /v1/completions or /v1/chat/completions body.
type genRequest struct {
	model        string
	prompt       []int32
	maxTokens    int // -1 when the client gave none
	minTokens    int
	ignoreEOS    bool
	stream       bool
	includeUsage bool
	// continuousUsage puts the usage so far on every chunk
	// (stream_options.continuous_usage_stats, with include_usage).
	continuousUsage bool
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

// decodeRequest parses a request body; chat selects the chat shape
// (messages) over the completions shape (prompt).
func decodeRequest(body []byte, chat bool) (genRequest, error) {
	var w wireRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&w); err != nil {
		return genRequest{}, badRequest("invalid JSON body: " + err.Error())
	}
	if dec.More() {
		return genRequest{}, badRequest("invalid JSON body: trailing data after the object")
	}
	r := genRequest{model: w.Model, maxTokens: -1, ignoreEOS: w.IgnoreEOS, stream: w.Stream}
	if w.StreamOptions != nil {
		if !w.Stream {
			return r, badRequest("Stream options can only be defined when `stream=True`.")
		}
		r.includeUsage = w.StreamOptions.IncludeUsage
		r.continuousUsage = r.includeUsage && w.StreamOptions.ContinuousUsageStats
	}
	if w.N != nil && *w.N != 1 {
		return r, badRequest("only n=1 is supported")
	}
	// vLLM's defaults: 16 tokens on /v1/completions, also for an explicit
	// null; on chat, the rest of the context. max_completion_tokens is a
	// chat parameter only (the completions API ignores it).
	switch {
	case chat && w.MaxCompletionTokens != nil:
		r.maxTokens = *w.MaxCompletionTokens
	case w.MaxTokens != nil:
		r.maxTokens = *w.MaxTokens
	case !chat:
		r.maxTokens = DefaultCompletionMaxTokens
	}
	if r.maxTokens != -1 && r.maxTokens < 1 {
		return r, badRequest(fmt.Sprintf("max_tokens must be at least 1, got %d.", r.maxTokens))
	}
	if w.MinTokens != nil {
		if *w.MinTokens < 0 {
			return r, badRequest(fmt.Sprintf("min_tokens must be greater than or equal to 0, got %d.", *w.MinTokens))
		}
		if r.maxTokens != -1 && *w.MinTokens > r.maxTokens {
			return r, badRequest(fmt.Sprintf("min_tokens must be less than or equal to max_tokens=%d, got %d.", r.maxTokens, *w.MinTokens))
		}
		r.minTokens = *w.MinTokens
	}
	var err error
	if chat {
		var msgs []chatMessage
		msgs, err = decodeMessages(w.Messages)
		if err == nil {
			r.prompt = chatTokens(msgs)
		}
	} else {
		r.prompt, err = decodePrompt(w.Prompt)
	}
	if err != nil {
		return r, err
	}
	if len(r.prompt) == 0 {
		return r, badRequest("The prompt cannot be empty.")
	}
	return r, nil
}

// decodePrompt accepts a string, a list of token ids, or a list of one of
// either.
func decodePrompt(raw json.RawMessage) ([]int32, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, badRequest("field required: prompt")
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return Tokenize(text), nil
	}
	var ids []int64
	if json.Unmarshal(raw, &ids) == nil {
		return checkIDs(ids)
	}
	var texts []string
	if json.Unmarshal(raw, &texts) == nil {
		if len(texts) != 1 {
			return nil, badRequest(fmt.Sprintf("prompt: a list of %d prompts; the simulator takes one", len(texts)))
		}
		return Tokenize(texts[0]), nil
	}
	var idLists [][]int64
	if json.Unmarshal(raw, &idLists) == nil {
		if len(idLists) != 1 {
			return nil, badRequest(fmt.Sprintf("prompt: a list of %d prompts; the simulator takes one", len(idLists)))
		}
		return checkIDs(idLists[0])
	}
	return nil, badRequest("prompt: must be a string, a list of token ids, or a list of one of either")
}

func checkIDs(ids []int64) ([]int32, error) {
	out := make([]int32, len(ids))
	for i, id := range ids {
		if id < 0 || id >= vocabSize {
			return nil, badRequest(fmt.Sprintf("Token id %d is out of vocabulary", id))
		}
		out[i] = int32(id)
	}
	return out, nil
}

// decodeMessages reads chat messages whose content is a string or a list of
// {"type":"text","text":...} parts.
func decodeMessages(raw json.RawMessage) ([]chatMessage, error) {
	var wire []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, badRequest("field required: messages")
	}
	if err := json.Unmarshal(raw, &wire); err != nil {
		return nil, badRequest("messages: " + err.Error())
	}
	if len(wire) == 0 {
		return nil, badRequest("messages: at least one message is required")
	}
	out := make([]chatMessage, len(wire))
	for i, m := range wire {
		if m.Role == "" {
			return nil, badRequest(fmt.Sprintf("messages[%d].role: field required", i))
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
			return nil, badRequest(fmt.Sprintf("messages[%d].content: must be a string or a list of text parts", i))
		}
		var b strings.Builder
		for _, p := range parts {
			if p.Type != "text" {
				return nil, badRequest(fmt.Sprintf("messages[%d].content: part type %q is not supported", i, p.Type))
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

// outputLength decides how many tokens a request generates and why it
// stops, its end-of-sequence token included. With ignore_eos it generates
// exactly maxTokens ("length"). Otherwise it stops at a pseudo-random
// end-of-sequence point drawn from an exponential distribution of mean
// meanEOS, seeded by the server seed and the prompt's content (the same
// prompt stops at the same point), but never beyond maxTokens:
// minTokens + 1 + ⌊−meanEOS·ln(1−u)⌋ tokens, "stop" when that is below
// maxTokens, "length" otherwise. min_tokens only holds the end of sequence
// off, as in vLLM: the draw starts after it (the stop is memoryless), and
// a request with min_tokens equal to max_tokens runs to max_tokens.
func outputLength(r genRequest, maxTokens, meanEOS int, seed int64, promptHash uint64) (int, string) {
	if r.ignoreEOS {
		return maxTokens, "length"
	}
	u := unitFloat(splitmix64(uint64(seed) ^ promptHash))
	n := r.minTokens + 1 + int(math.Floor(-float64(meanEOS)*math.Log1p(-u)))
	if n < maxTokens {
		return n, "stop"
	}
	return maxTokens, "length"
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unitFloat maps a 64-bit value to [0, 1).
func unitFloat(x uint64) float64 { return float64(x>>11) / (1 << 53) }

package vllmsim

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/llmslo/llmslo/vllmsim/wire"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// The simulator answers the official OpenAI Go client as vLLM does: every
// call a client makes of vLLM's OpenAI-compatible API parses, vLLM's own
// extra parameters take effect, and every error reaches the client as an
// *openai.Error with its status and vLLM's message. openai-go is a test
// dependency only; the command does not link it.
func TestConformanceOpenAIGo(t *testing.T) {
	const maxLen = 256
	s := start(t, Config{ProfileName: "instant", MaxModelLen: maxLen})
	c := openaiClient(s)
	ctx := context.Background()

	t.Run("models", func(t *testing.T) {
		page, err := c.Models.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Data) != 1 || page.Data[0].ID != DefaultModel || page.Data[0].Object != "model" || page.Data[0].OwnedBy != "vllm" {
			t.Fatalf("models %+v", page.Data)
		}
	})

	t.Run("chat, whole", func(t *testing.T) {
		r, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model:     DefaultModel,
			Messages:  []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("be brief"), openai.UserMessage("what is a queue?")},
			MaxTokens: openai.Int(7),
		}, option.WithJSONSet("ignore_eos", true))
		if err != nil {
			t.Fatal(err)
		}
		ch := r.Choices[0]
		if r.Object != "chat.completion" || ch.Message.Role != "assistant" || ch.FinishReason != "length" ||
			len(Tokenize(ch.Message.Content)) != 7 || r.Usage.CompletionTokens != 7 || r.Usage.TotalTokens != r.Usage.PromptTokens+7 {
			t.Fatalf("chat completion %+v", r)
		}
	})

	t.Run("completions, whole", func(t *testing.T) {
		r, err := c.Completions.New(ctx, openai.CompletionNewParams{
			Model:     openai.CompletionNewParamsModel(DefaultModel),
			Prompt:    openai.CompletionNewParamsPromptUnion{OfString: openai.String("one two three")},
			MaxTokens: openai.Int(5),
		}, option.WithJSONSet("min_tokens", 5))
		if err != nil {
			t.Fatal(err)
		}
		if r.Object != "text_completion" || r.Choices[0].FinishReason != "length" || len(Tokenize(r.Choices[0].Text)) != 5 ||
			r.Usage.PromptTokens != 3 || r.Usage.CompletionTokens != 5 {
			t.Fatalf("completion %+v", r)
		}
	})

	// Exact lengths through vLLM's extra parameters, streamed, as a
	// benchmark asks for them: ignore_eos on chat, min_tokens on
	// completions; usage and finish_reason "length" as vLLM sends them.
	t.Run("chat, streamed, ignore_eos", func(t *testing.T) {
		st := c.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
			Model:         DefaultModel,
			Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("tell me about the queue")},
			MaxTokens:     openai.Int(40),
			StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		}, option.WithJSONSet("ignore_eos", true))
		var acc openai.ChatCompletionAccumulator
		chunks := 0
		for st.Next() {
			ch := st.Current()
			acc.AddChunk(ch)
			if len(ch.Choices) > 0 && ch.Choices[0].Delta.Content != "" {
				chunks++
			}
		}
		if err := st.Err(); err != nil {
			t.Fatal(err)
		}
		if chunks != 40 || acc.Usage.CompletionTokens != 40 || acc.Usage.PromptTokens != 11 || acc.Choices[0].FinishReason != "length" {
			t.Fatalf("%d content chunks, usage %+v, finish %q; want 40, 11 + 40, length", chunks, acc.Usage, acc.Choices[0].FinishReason)
		}
	})

	t.Run("completions, streamed, min_tokens", func(t *testing.T) {
		st := c.Completions.NewStreaming(ctx, openai.CompletionNewParams{
			Model:         openai.CompletionNewParamsModel(DefaultModel),
			Prompt:        openai.CompletionNewParamsPromptUnion{OfArrayOfTokens: []int64{1, 2, 3, 4, 5, 6, 7}},
			MaxTokens:     openai.Int(33),
			StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		}, option.WithJSONSet("min_tokens", 33))
		chunks, finish, usage := 0, "", openai.CompletionUsage{}
		for st.Next() {
			ch := st.Current()
			if len(ch.Choices) > 0 {
				if ch.Choices[0].Text != "" {
					chunks++
				}
				if ch.Choices[0].FinishReason != "" {
					finish = string(ch.Choices[0].FinishReason)
				}
			}
			if ch.Usage.TotalTokens > 0 {
				usage = ch.Usage
			}
		}
		if err := st.Err(); err != nil {
			t.Fatal(err)
		}
		if chunks != 33 || finish != "length" || usage.PromptTokens != 7 || usage.CompletionTokens != 33 || usage.TotalTokens != 40 {
			t.Fatalf("%d text chunks, finish %q, usage %+v; want 33, length, 7 + 33", chunks, finish, usage)
		}
	})

	// Errors: each is an *openai.Error whose status and message are
	// vLLM's.
	apiErr := func(t *testing.T, err error, status int, msg string) {
		t.Helper()
		var e *openai.Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v (%T) is not an *openai.Error", err, err)
		}
		if e.StatusCode != status || !strings.Contains(e.Message, msg) || e.Type != wire.ErrorType(status) {
			t.Fatalf("status %d, type %q, message %q; want %d, %s, %q", e.StatusCode, e.Type, e.Message, status, wire.ErrorType(status), msg)
		}
	}
	t.Run("wrong model", func(t *testing.T) {
		_, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model: "no-such-model", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		})
		apiErr(t, err, http.StatusNotFound, "The model `no-such-model` does not exist.")
	})
	t.Run("over-long prompt", func(t *testing.T) {
		_, err := c.Completions.New(ctx, openai.CompletionNewParams{
			Model:  openai.CompletionNewParamsModel(DefaultModel),
			Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(textPrompt("w", maxLen+10))},
		})
		apiErr(t, err, http.StatusBadRequest, "This model's maximum context length is 256 tokens. However, your request has 266 input tokens.")
	})
	t.Run("bad parameter", func(t *testing.T) {
		_, err := c.Completions.New(ctx, openai.CompletionNewParams{
			Model:     openai.CompletionNewParamsModel(DefaultModel),
			Prompt:    openai.CompletionNewParamsPromptUnion{OfString: openai.String("hi")},
			MaxTokens: openai.Int(4),
		}, option.WithJSONSet("min_tokens", 9))
		apiErr(t, err, http.StatusBadRequest, "min_tokens must be less than or equal to max_tokens=4, got 9.")
	})
	t.Run("injected status", func(t *testing.T) {
		f := start(t, Config{ProfileName: "instant", Faults: Faults{ErrorRate: 1, ErrorStatus: 503, ErrorMessage: "no capacity"}})
		fc := openaiClient(f)
		if _, err := fc.Models.List(ctx); err != nil { // not a generation: answered normally
			t.Fatal(err)
		}
		st := fc.Completions.NewStreaming(ctx, openai.CompletionNewParams{
			Model: openai.CompletionNewParamsModel(DefaultModel), Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("hi")},
		})
		for st.Next() {
		}
		apiErr(t, st.Err(), http.StatusServiceUnavailable, "no capacity")
	})

	// A failure mid-stream arrives as data: {"error": {...}}; the client
	// stops there, and the event's error reads as an *openai.Error.
	t.Run("error mid-stream", func(t *testing.T) {
		f := start(t, Config{ProfileName: "instant", Faults: Faults{ErrorEventRate: 1, ErrorEventAfter: 3}})
		fc := openaiClient(f)
		st := fc.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
			Model: DefaultModel, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}, MaxTokens: openai.Int(10),
		})
		tokens := 0
		for st.Next() {
			if ch := st.Current(); len(ch.Choices) > 0 && ch.Choices[0].Delta.Content != "" {
				tokens++
			}
		}
		var se *ssestream.StreamError
		if !errors.As(st.Err(), &se) || tokens != 3 {
			t.Fatalf("after %d tokens: %v (%T); want a stream error after 3", tokens, st.Err(), st.Err())
		}
		var e openai.Error
		if err := e.UnmarshalJSON([]byte(errorMember(t, se.Event.Data))); err != nil {
			t.Fatal(err)
		}
		if e.Message != "Internal server error" || e.Type != "InternalServerError" || e.Code != "500" {
			t.Fatalf("in-stream error %+v", e)
		}
	})

	// vLLM 0.10.0's flat error object is what this client cannot read:
	// the status arrives, the message does not. Today's format is the
	// default for that reason; the legacy one is kept for testing clients
	// against older servers.
	t.Run("legacy format loses the message", func(t *testing.T) {
		old := start(t, Config{ProfileName: "instant", ErrorFormat: ErrorFormatLegacy})
		oc := openaiClient(old)
		_, err := oc.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model: "no-such-model", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		})
		var e *openai.Error
		if !errors.As(err, &e) || e.StatusCode != http.StatusNotFound || e.Message != "" {
			t.Fatalf("legacy 404: %v; want an *openai.Error with status 404 and no message", err)
		}
	})
}

// errorMember is the raw "error" member of an event's JSON data.
func errorMember(t *testing.T, data []byte) string {
	t.Helper()
	var v map[string]json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("event %q: %v", data, err)
	}
	return string(v["error"])
}

package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmslo/llmslo/internal/vllmcaptures"
	"github.com/llmslo/llmslo/load/workload"
)

// serveCapture answers every request with a capture of real vLLM output:
// a stream with 200, an error body with its status.
func serveCapture(t *testing.T, name string, status int) string {
	t.Helper()
	body := vllmcaptures.Read(name)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if strings.HasSuffix(name, ".sse") {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The client reads each capture of real vLLM output to the right token
// counts, events and outcome (internal/vllmcaptures/testdata/README.md names their
// sources).
func TestClientReadsRealVLLMOutput(t *testing.T) {
	for _, c := range []struct {
		name          string
		status        int
		class         ErrorClass
		events, multi int
		prompt        int // from the usage; 0 where the capture has none
		completion    int
		message       string
	}{
		// No usage: the completion length is the count of token events.
		{"completion-stream-length.sse", 200, "", 2, 0, 0, 2, ""},
		// The stop chunk's empty content is no token event.
		{"chat-stream-eos.sse", 200, "", 3, 0, 0, 3, ""},
		// The role chunk and empty content carry no token.
		{"chat-stream-role.sse", 200, "", 2, 0, 0, 2, ""},
		// Usage on every chunk, then the usage-only chunk ("choices":[]):
		// the role chunk, the stop chunk of empty content and the usage
		// chunk carry no token; every content chunk carried one (its
		// completion_tokens grew by one), and the usage counts the
		// end-of-sequence token no event carried.
		{"chat-stream-usage-continuous.sse", 200, "", 25, 0, 46, 26, ""},
		{"chat-stream-empty-content.sse", 200, "", 1, 0, 0, 1, ""},
		{"error-400-context-length.json", 400, "http_400", 0, 0, 0, 0, "This model's maximum context length is 196608 tokens. However, you requested 32768 output tokens"},
		{"error-404-model.json", 404, "http_404", 0, 0, 0, 0, "The model `QwQ-32B-Q4_K_M` does not exist."},
		// The flat object of vLLM before the error envelope, as a server sent it.
		{"error-404-model-legacy-live.json", 404, "http_404", 0, 0, 0, 0, "The model `Qwen1.5-14B-Chat-GPTQ-Int8` does not exist."},
		// Refused at admission: shed, not a server error.
		{"error-503-admission.json", 503, ClassShed, 0, 0, 0, 0, "The engine is currently busy and cannot accept new requests."},
	} {
		cl := newTestClient(t, serveCapture(t, c.name, c.status), Config{})
		out, _ := doBounded(t, context.Background(), cl, workload.Request{Prompt: "hello", OutputTokens: 4})
		if out.Class != c.class || out.TokenEvents != c.events || out.MultiTokenEvents != c.multi || out.PromptTokens != c.prompt || out.CompletionTokens != c.completion {
			t.Errorf("%s: class %q, %d token events, %d multi, %d prompt, %d completion tokens (err %v); want %q, %d, %d, %d, %d",
				c.name, out.Class, out.TokenEvents, out.MultiTokenEvents, out.PromptTokens, out.CompletionTokens, out.Err, c.class, c.events, c.multi, c.prompt, c.completion)
		}
		if out.UsageReported != (c.prompt > 0) {
			t.Errorf("%s: usage reported %v", c.name, out.UsageReported)
		}
		if !strings.HasPrefix(out.Message, c.message) {
			t.Errorf("%s: message %q, want it to start %q", c.name, out.Message, c.message)
		}
	}
}

// GET /v1/models as vLLM 0.7 answered it, LoRA adapters with a null
// max_model_len among them.
func TestClientReadsRealModelList(t *testing.T) {
	cl := newTestClient(t, serveCapture(t, "models.json", 200), Config{})
	cards, err := cl.ModelCards(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []ModelCard{{"Qwen/Qwen2.5-Coder-1.5B-Instruct", 32768}, {"lora-1", 0}, {"lora-2", 0}}
	if len(cards) != len(want) {
		t.Fatalf("cards %+v", cards)
	}
	for i := range want {
		if cards[i] != want[i] {
			t.Errorf("card %d: %+v, want %+v", i, cards[i], want[i])
		}
	}
}

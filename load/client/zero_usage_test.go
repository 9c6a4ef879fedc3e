package client

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/llmslo/llmslo/load/workload"
)

// TestClientIgnoresZeroUsage: Ollama's completions stream carries a usage of
// zeros on every event and the real one at the end. The zeros are no
// per-event usage: the final count still says how many tokens the events
// carried together (4 tokens in 3 events: one event carried two).
func TestClientIgnoresZeroUsage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		zero := `"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}`
		for _, text := range []string{"a", "bc", "d"} {
			fmt.Fprintf(w, "data: {\"choices\":[{\"text\":%q,\"index\":0,\"finish_reason\":null}],%s}\n\n", text, zero)
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":4,\"total_tokens\":9}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, Config{})
	var out Outcome
	c.Do(t.Context(), workload.Request{Prompt: "x", OutputTokens: 4}, &out)
	if !out.OK() || out.TokenEvents != 3 || out.CompletionTokens != 4 || out.PromptTokens != 5 || out.MultiTokenEvents != 1 {
		t.Fatalf("class %q (%v): events %d, completion %d, prompt %d, multi %d; want ok, 3, 4, 5, 1",
			out.Class, out.Err, out.TokenEvents, out.CompletionTokens, out.PromptTokens, out.MultiTokenEvents)
	}
}

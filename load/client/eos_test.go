package client

import (
	"fmt"
	"testing"

	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
)

// A generation that stops at end-of-sequence ends, as in vLLM, with a
// chunk of empty text and finish_reason "stop", and completion_tokens
// counts the end-of-sequence token. The client counts no token event for
// that chunk and no multi-token event for the token it carried.
func TestStopAtEOSAddsNoMultiTokenEvent(t *testing.T) {
	srv := simServer(t, vllmsim.Config{EOSMeanTokens: 4})
	cl := newTestClient(t, srv.URL, Config{})
	stopped := 0
	for i := range 40 {
		// No output length asked: the server's default (16 on completions)
		// and its own end of sequence.
		out, _ := doBounded(t, t.Context(), cl, workload.Request{Prompt: fmt.Sprintf("prompt number %d", i)})
		if out.Class == ClassNoTokens && out.CompletionTokens == 1 {
			continue // the first token was the end of sequence: no text at all
		}
		if !out.OK() || !out.UsageReported {
			t.Fatalf("request %d: class %q err %v usage %v", i, out.Class, out.Err, out.UsageReported)
		}
		if out.MultiTokenEvents != 0 {
			t.Fatalf("request %d: %d multi-token events from %d tokens in %d events", i, out.MultiTokenEvents, out.CompletionTokens, out.TokenEvents)
		}
		if out.CompletionTokens < vllmsim.DefaultCompletionMaxTokens {
			stopped++
			if out.TokenEvents != out.CompletionTokens-1 || out.TrailingTokens != 1 {
				t.Fatalf("request %d stopped at %d tokens with %d token events; want one fewer (the EOS token has no text), and it trailing (%d)", i, out.CompletionTokens, out.TokenEvents, out.TrailingTokens)
			}
		}
	}
	if stopped < 15 {
		t.Fatalf("only %d of 40 requests stopped early; the test needs stops", stopped)
	}
}

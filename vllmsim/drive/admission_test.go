package drive

import (
	"testing"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

func newTestStream(id uint64, promptLen int) *Stream {
	return NewStream(engine.NewSeq(id, make([]int32, promptLen), 4), time.Now(), "length")
}

// A limit refuses once reached, whatever the request's size; a request
// leaves the prefill backlog at its first token and the count of requests
// when released, once however often it is released.
func TestAdmissionCountsAndRefuses(t *testing.T) {
	a := admission{maxReqs: 2, maxTokens: 100}
	first, second := newTestStream(1, 150), newTestStream(2, 10)
	if r := a.admit(first); r != "" {
		t.Fatalf("the first request refused: %s", r)
	}
	if r := a.admit(second); r != RejectQueuedTokens {
		t.Fatalf("150 prompt tokens in prefill against a limit of 100: got %q, want %s", r, RejectQueuedTokens)
	}
	a.prefilled(first)
	if r := a.admit(second); r != "" || a.prefillTokens != 10 || a.reqs != 2 {
		t.Fatalf("after the first token: %q, %d prefill tokens, %d requests", r, a.prefillTokens, a.reqs)
	}
	if r := a.admit(newTestStream(3, 1)); r != RejectQueuedReqs {
		t.Fatalf("two requests against a limit of 2: got %q", r)
	}
	a.release(second)
	a.release(second)
	if a.reqs != 1 || a.prefillTokens != 0 {
		t.Fatalf("after releasing one twice: %d requests, %d prefill tokens; want 1 and 0", a.reqs, a.prefillTokens)
	}
}

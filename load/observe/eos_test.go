package observe

import (
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/stretchr/testify/assert"
)

// A request that stopped at end-of-sequence: vLLM counts the EOS token in
// completion_tokens, but it comes in a chunk without text, after the last
// token event. TPOT spans the token events only, so it leaves that token
// out; the output tokens keep it.
func TestTPOTLeavesOutTheTrailingEOSToken(t *testing.T) {
	t0 := time.Now()
	rec := NewRecorder(t0, time.Second, PerRequestLimits{}, LengthCheck{})
	at := t0.Add(10 * time.Millisecond)
	o := &client.Outcome{Intended: at, Sent: at, First: at.Add(20 * time.Millisecond), Last: at.Add(50 * time.Millisecond),
		TokenEvents: 4, CompletionTokens: 5, TrailingTokens: 1, UsageReported: true}
	rec.Started(o.Intended)
	rec.Record(o, o.Last)
	s, _ := rec.Summary()
	assert.Equal(t, int64(5), s.Tokens.Output)
	assert.InDelta(t, 10.0, s.TPOT.P50, 0.1, "30 ms over the 3 gaps between 4 token events")
}

package observe

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/workload"
)

// On a server not held to output lengths, with prompts sized from its
// usage: a prompt within the sized tolerance and an output that ended
// early are no mismatch (the early end is counted); a prompt past it and an
// output longer than asked still are. Held to its lengths (the default),
// the same early end is a mismatch.
func TestLengthCheckOnAServerWithoutIgnoreEOS(t *testing.T) {
	requests := [][4]int{ // asked input, output; reported prompt, completion
		{64, 32, 62, 32}, // prompt 3% short: within 5%
		{64, 32, 64, 20}, // ended early
		{64, 32, 58, 32}, // prompt 9% short
		{64, 32, 64, 40}, // longer than asked
	}
	measure := func(lc LengthCheck) (mismatched, early, longer int) {
		t0 := time.Now()
		rec := NewRecorder(t0, time.Second, PerRequestLimits{}, lc)
		for _, r := range requests {
			o := &client.Outcome{Intended: t0.Add(10 * time.Millisecond), Request: workload.Request{InputTokens: r[0], OutputTokens: r[1]},
				UsageReported: true, PromptTokens: r[2], CompletionTokens: r[3], TokenEvents: r[3]}
			o.Sent = o.Intended
			o.First, o.Last = o.Sent.Add(time.Millisecond), o.Sent.Add(2*time.Millisecond)
			rec.Started(o.Intended)
			rec.Record(o, o.Last)
		}
		s, ev := rec.Summary()
		return s.LengthMismatches, s.LengthEndedEarly, ev.LengthLonger
	}
	m, e, l := measure(LengthCheck{Tolerance: 0.01, InputTolerance: 0.05, EarlyEndAllowed: true})
	assert.Equal(t, [3]int{2, 1, 1}, [3]int{m, e, l}, "mismatched, ended early, longer")
	m, e, l = measure(LengthCheck{Tolerance: 0.01})
	assert.Equal(t, [3]int{4, 0, 1}, [3]int{m, e, l})
}

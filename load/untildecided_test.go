package load

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/vllmsim"
)

// A healthy server far inside its SLOs is decided long before the cap:
// the step stops, passes, says when and why, and its report is that of a
// step of the length it ran.
func TestHealthyStepStopsWhenDecided(t *testing.T) {
	srv := pacedSim(t, 10*time.Millisecond, time.Millisecond, vllmsim.Faults{})
	c := engineClient(t, srv.URL)
	p := constantPlan(t, c, 40, 30*time.Second, 8, 8, "ttft.p90<=1s", "itl.p99<=500ms")
	p.UntilDecided, p.MinDuration = true, 3*time.Second
	start := time.Now()
	rep, err := runPlan(context.Background(), p)
	require.NoError(t, err)
	s := rep.Steps[0]
	require.NotNil(t, s.UntilDecided)
	t.Logf("%s (%d looks, %.1f s measured, wall %s)", s.UntilDecided.Why, len(s.UntilDecided.Looks), s.DurationS, time.Since(start))
	assert.True(t, s.UntilDecided.Decided)
	assert.Equal(t, "pass", s.UntilDecided.Outcome)
	assert.Equal(t, report.VerdictPass, s.Verdict)
	assert.False(t, s.Partial)
	assert.Less(t, s.DurationS, 15.0, "decided in under half the cap")
	assert.InDelta(t, s.UntilDecided.AtS, s.DurationS, 1, "the window ends where it was decided")
	assert.InDelta(t, 40, s.RateAchieved, 4, "the rate is over the window it ran")
	assert.Equal(t, s.Requests.Scheduled, s.Requests.Sent)
	for _, r := range s.SLO {
		require.NotNil(t, r.Anytime, r.Metric)
	}
}

package load

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/llmslo/llmslo/internal/busy"
	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func saturationPlan(t *testing.T, rate float64, d time.Duration) stepPlan {
	srv := pacedSim(t, 0, 0, vllmsim.Faults{})
	th := verdict.Thresholds{Off: []string{verdict.HazardTooFewSamples}}
	p := handPlan(engineClient(t, srv.URL), fixedWorkload(4, 1), []float64{rate}, d, plantest.MustSLOs(t, "error_rate<=1%"))
	p.Thresholds = th
	return p
}

func TestClientSaturationFiresWhenTheDispatcherIsStarved(t *testing.T) {
	// One P shared with four busy goroutines: the dispatcher waits for the
	// scheduler before each send, as a load generator on a busy core does.
	p := saturationPlan(t, 200, time.Second)
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	stop := busy.Loops(4)
	rep, err := runPlan(context.Background(), p)
	stop()
	require.NoError(t, err)
	s := rep.Steps[0]
	require.True(t, s.HasHazard(verdict.HazardClientSaturation), "hazards %+v, send lag %+v, client %+v", s.Hazards, s.SendLag, s.Client)
	assert.Equal(t, report.VerdictInvalid, s.Verdict)
	assert.Greater(t, s.SendLag.P99, 5.0)
	assert.Greater(t, s.Client.SchedLatencyP99Ms, 5.0)
	assert.Equal(t, 1, s.Client.GOMAXPROCS)
}

func TestClientSaturationQuietAtAModestRate(t *testing.T) {
	if raceEnabled {
		t.Skip("a send-lag figure: the race detector makes every client late; run without -race")
	}
	p := saturationPlan(t, 50, 3*time.Second)
	rep, err := runPlan(context.Background(), p)
	require.NoError(t, err)
	s := rep.Steps[0]
	assert.False(t, s.HasHazard(verdict.HazardClientSaturation), "hazards %+v, send lag %+v, client %+v", s.Hazards, s.SendLag, s.Client)
	assert.Equal(t, report.VerdictPass, s.Verdict)
}

func TestClientSaturationFiresOnDrops(t *testing.T) {
	srv := pacedSim(t, 100*time.Millisecond, 0, vllmsim.Faults{})
	// Only the drop signal: lag and scheduler latency limits out of reach.
	th := verdict.Thresholds{Off: []string{verdict.HazardTooFewSamples}, MaxSendLagP99: time.Hour, MaxSchedLatencyP99: time.Hour}
	p := handPlan(engineClient(t, srv.URL), fixedWorkload(4, 5), []float64{50}, 500*time.Millisecond, plantest.MustSLOs(t, "error_rate<=1%"))
	p.MaxInFlight = 2
	p.Thresholds = th
	rep, err := runPlan(context.Background(), p)
	require.NoError(t, err)
	s := rep.Steps[0]
	assert.Positive(t, s.Requests.Dropped)
	assert.True(t, s.HasHazard(verdict.HazardClientSaturation), "%+v", s.Hazards)
	assert.Contains(t, s.Hazards[0].Message, "dropped by the in-flight cap")
}

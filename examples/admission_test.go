package examples

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/slotest"
	"github.com/llmslo/llmslo/vllmsim"
)

// TestAdmissionControlShedsFastAt20 is the tuning lesson's "Try it" 2 on
// the simulator: a server that runs up to 64 requests and serves about
// 15 a second (300-token answers at about 13 ms a step with 64 running),
// asked for 20 a second, with admission control that refuses an arrival
// when more than 40 are waiting (--max-num-queued-reqs caps running plus
// waiting: 64 + 40). The overload gate passes: the excess gets its 503 in
// milliseconds, and the admitted requests wait at most for the 40 ahead.
// It reports the rejection rate and the worst queue wait.
func TestAdmissionControlShedsFastAt20(t *testing.T) {
	rep := slotest.Run(t,
		slotest.WithSim(vllmsim.Config{ProfileName: "h100-llama3-8b", MaxNumSeqs: 64, MaxNumQueuedReqs: 64 + 40}),
		slotest.WithFixture("fixed:64:300"),
		slotest.WithRates(20),
		slotest.WithWarmup(15*time.Second), // the queue fills to 40 in about 10 s
		slotest.WithDuration(15*time.Second),
		slotest.WithSLO("ttft.p95<=5s", "itl.p99<=100ms"),
		slotest.WithOverload(250*time.Millisecond),
	)
	require.Len(t, rep.Steps, 1)
	st := rep.Steps[0]
	g := st.OverloadGate
	require.NotNil(t, g)
	require.NotNil(t, st.Shed, "20 req/s is past this server's knee")
	t.Logf("rejection rate %.1f%% (95%% interval %.1f%% to %.1f%%), 503 in %.1f ms at p99; worst queue wait at most %g s; TTFT p95 of the admitted %.0f ms",
		100*st.Shed.Share, 100*st.Shed.CI95[0], 100*st.Shed.CI95[1], g.ShedP99Ms, g.WorstQueueWaitS, st.TTFT.P95)
	assert.InDelta(t, 0.22, st.Shed.Share, 0.12, "about a fifth turned away, as in the lesson's model")
	assert.LessOrEqual(t, g.WorstQueueWaitS, 5.0, "40 waiting at about 15 served a second: under 3 s")
	assert.False(t, g.WorstQueueWaitOver)
}

package examples

import (
	"testing"
	"time"

	"github.com/llmslo/llmslo/slotest"
	"github.com/llmslo/llmslo/vllmsim"
)

// TestAgenticGate gates a coding agent's traffic: real sessions (WEKA's
// agentic traces, testdata/weka-short) replayed as they arrive. Sessions
// start open-loop, 3 per second; inside each, a turn goes out when the
// previous response has ended and the recorded think time has passed, and
// resends the whole growing context (10k-18k tokens), so the server's prefix
// cache carries most of every later prompt. The trace's hash ids say how
// much, and the warm_cache hazard compares the server's hit rate with that.
//
// Think times run at a tenth of the recorded ones, and a pause longer than
// a second (one session waits 51 minutes) is cut to one, so the gate takes
// seconds; the server's response times are untouched. The simulated server
// prefills at most 2048 tokens a step, so that long prompts do not stall
// the streams already decoding. The report splits TTFT by position: first
// turns (a cold prefill) against later ones (mostly cache hits). The 54
// turns of a 6 s step give a p75 its ten tail samples; a p95 needs 200.
func TestAgenticGate(t *testing.T) {
	slotest.Run(t,
		slotest.WithSim(vllmsim.Config{GPU: "b200", MaxModelLen: 32768, MaxNumBatchedTokens: 2048}),
		slotest.WithFixture("testdata/weka-short"),
		slotest.WithRates(3), // sessions per second
		slotest.WithArrival("constant"),
		slotest.WithDuration(6*time.Second),
		slotest.WithWarmup(0),
		slotest.WithThinkTimeScale(0.1),
		slotest.WithMaxThink(time.Second),
		slotest.WithSLO("ttft.p75<=1s", "itl.p99<=100ms", "error_rate<=1%"),
	)
}

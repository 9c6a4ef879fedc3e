package examples

import (
	"testing"
	"time"

	"github.com/llmslo/llmslo/slotest"
	"github.com/llmslo/llmslo/vllmsim"
)

// TestPRGate is the gate a serving repository runs on every pull request:
// production-shaped traffic (the Azure 2023 conversation trace) at an
// open-loop Poisson rate, failing when p95 time to first token or p99
// inter-token latency breaks its SLO, or when the measurement cannot be
// trusted. Each rate is a subtest: go test -run 'TestPRGate/rate=6'.
//
// By default the server is the simulator, standing in for Llama-3-8B on one
// H200; SLOTEST_TARGET=http://host:8000 gates a real one with the same test.
// At 6 req/s for 40 s the p95 rests on 240 requests, enough for a 95%
// interval; the p99 ITL on tens of thousands of token gaps. (At 8 req/s,
// exactly 8 since schedules hold their exact count, this server is at its
// knee: TTFT still rises through a 30 s step, and the step is not steady.)
func TestPRGate(t *testing.T) {
	slotest.Run(t,
		slotest.WithSim(vllmsim.Config{ProfileName: "h200-llama3-8b"}),
		slotest.WithFixture("azure-conv-2023"),
		slotest.WithRates(6),
		slotest.WithDuration(40*time.Second),
		slotest.WithWarmup(10*time.Second),
		slotest.WithSLO("ttft.p95<=500ms", "itl.p99<=250ms", "error_rate<=1%"),
		slotest.WithUntilDecided(),
	)
}

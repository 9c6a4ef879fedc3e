package examples

import (
	"testing"
	"time"

	"github.com/llmslo/llmslo/slotest"
)

// TestPRGate is the gate a serving repository runs on every pull request:
// production-shaped traffic (the Azure 2023 conversation trace) at an
// open-loop Poisson rate, failing when p95 time to first token or p99
// inter-token latency breaks its SLO, or when the measurement cannot be
// trusted. Each rate is a subtest: go test -run 'TestPRGate/rate=6'.
func TestPRGate(t *testing.T) {
	slotest.Run(t,
		slotest.WithFixture("azure-conv-2023"),
		slotest.WithRates(6),
		slotest.WithDuration(40*time.Second),
		slotest.WithWarmup(5*time.Second),
		slotest.WithSLO("ttft.p95<=500ms", "itl.p99<=250ms", "error_rate<=1%"),
	)
}

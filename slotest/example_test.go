package slotest_test

import (
	"testing"
	"time"

	"github.com/llmslo/llmslo/slotest"
	"github.com/llmslo/llmslo/vllmsim"
)

// Run is the whole gate: options in, a subtest per rate, failures with the
// SLO that broke or the hazard that made the measurement untrustworthy.
// This is the PR gate of examples/prgate_test.go; a program that builds
// and measures a plan itself uses load.Plan and load.Measure.
func ExampleRun() {
	var t *testing.T // the test's own, in a func TestPRGate(t *testing.T)
	if t == nil {
		return
	}
	slotest.Run(t,
		slotest.WithSim(vllmsim.Config{ProfileName: "h200-llama3-8b"}),
		slotest.WithFixture("azure-conv-2023"),
		slotest.WithRates(6),
		slotest.WithDuration(40*time.Second),
		slotest.WithWarmup(10*time.Second),
		slotest.WithSLO("ttft.p95<=500ms", "itl.p99<=250ms", "error_rate<=1%"),
	)
}

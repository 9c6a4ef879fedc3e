package slotest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/slotest"
	"github.com/llmslo/llmslo/vllmsim"
)

// Measure is the core that slotest.Run wraps: no testing.T, a report back.
// Here one second at 20 req/s against the simulator with no step cost.
func ExampleMeasure() {
	plan, err := slotest.NewPlan(
		slotest.WithSim(vllmsim.Config{ProfileName: "instant"}),
		slotest.WithFixture("fixed:128:16"),
		slotest.WithRates(20),
		slotest.WithArrival("constant"),
		slotest.WithDuration(time.Second),
		slotest.WithWarmup(0),
		slotest.WithSLO("ttft.p50<=1s", "error_rate<=1%"),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := load.Measure(context.Background(), plan)
	if err != nil {
		fmt.Println(err)
		return
	}
	st := rep.Steps[0]
	fmt.Println(st.Name, st.Requests.Completed, "completed,", st.Tokens.Input, "prompt and", st.Tokens.Output, "output tokens")
	for _, r := range st.SLO {
		fmt.Println(r.Metric, "pass:", r.Pass)
	}
	// Output:
	// rate=20 20 completed, 2560 prompt and 320 output tokens
	// ttft pass: true
	// error_rate pass: true
}

// Sweep finds the knee: the highest rate that meets every SLO.
func ExampleSweep() {
	plan, err := slotest.NewPlan(
		slotest.WithFixture("azure-conv-2023"),
		slotest.WithRates(2, 4, 8, 16),
		slotest.WithDuration(60*time.Second),
		slotest.WithSLO("ttft.p95<=500ms", "itl.p99<=250ms"),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := load.Sweep(context.Background(), plan, load.Search{Refine: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("meets every SLO at %g req/s, not at %g\n", rep.Capacity.PassRate, rep.Capacity.FailRate)
}

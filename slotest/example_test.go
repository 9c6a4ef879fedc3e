package slotest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/slotest"
	"github.com/llmslo/llmslo/vllmsim"
)

// NewPlan builds the typed plan that Run measures, from the same options,
// for a program that drives load.Measure or tune.Sweep itself.
func ExampleNewPlan() {
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
	fmt.Println(st.Name, st.Requests.Completed, "completed")
	// Output:
	// rate=20 20 completed
}

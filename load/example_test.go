package load_test

import (
	"context"
	"fmt"
	"time"

	"github.com/llmslo/llmslo/fixtures/formats"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/simtarget"
)

// Measure is the core that slotest.Run wraps: a typed plan in, a report
// back, no testing.T. Here one second at 20 req/s against the simulator
// with no step cost.
func ExampleMeasure() {
	plan := load.DefaultPlan()
	plan.Target = simtarget.Sim{Config: vllmsim.Config{ProfileName: "instant"}}
	fx, err := formats.Open("fixed:128:16")
	if err != nil {
		fmt.Println(err)
		return
	}
	slos, err := verdict.ParseSLOs([]string{"ttft.p50<=1s", "error_rate<=1%"})
	if err != nil {
		fmt.Println(err)
		return
	}
	plan.Fixture, plan.SLOs, plan.Rates = fx, slos, []float64{20}
	plan.Arrival = arrival.Spec{Kind: arrival.Constant}
	plan.Duration, plan.Warmup = time.Second, 0
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

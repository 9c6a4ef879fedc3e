package tune_test

import (
	"context"
	"fmt"
	"time"

	"github.com/llmslo/llmslo/fixtures/formats"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/tune"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/simtarget"
)

// Sweep finds the knee: the highest rate that meets every SLO, and what
// binds there. (Not run: a minute a step.)
func ExampleSweep() {
	plan := load.DefaultPlan()
	plan.Target = simtarget.Sim{Config: vllmsim.Config{ProfileName: "h200-llama3-8b"}}
	fx, err := formats.Open("azure-conv-2023")
	if err != nil {
		fmt.Println(err)
		return
	}
	plan.Fixture, plan.Rates, plan.Duration = fx, []float64{2, 4, 8, 16}, time.Minute
	rep, err := tune.Sweep(context.Background(), plan, tune.Search{Refine: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("meets every SLO at %g req/s, not at %g\n", rep.Capacity.PassRate, rep.Capacity.FailRate)
}

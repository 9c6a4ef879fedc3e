package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/workload"
)

// lagCmd runs one open-loop step as a run does (dispatcher, client,
// recorder; no verdict or report) and reports the send lag and the CPU per
// request over the measured window. -wait picks how the dispatcher waits,
// so the modes can be compared in one run.
func lagCmd(args []string) error {
	fs := flag.NewFlagSet("lag", flag.ExitOnError)
	url := fs.String("url", "http://127.0.0.1:8100", "server")
	rate := fs.Float64("rate", 1000, "requests per second")
	dur := fs.Duration("duration", 5*time.Second, "measured window")
	warm := fs.Duration("warmup", time.Second, "unmeasured warm-up at the same rate")
	tokens := fs.Int("tokens", 1, "tokens per stream")
	arr := fs.String("arrival", "poisson", "poisson or constant")
	wait := fs.String("wait", "fine", "the dispatcher's wait: fine, timer or spin")
	label := fs.String("label", "llmslo", "the result's label")
	out := fs.String("out", "", "append the result to this file")
	_ = fs.Parse(args)
	mode, ok := dispatch.ParseWaitMode(*wait)
	if !ok {
		return fmt.Errorf("-wait %q: want fine, timer or spin", *wait)
	}
	total := *warm + *dur
	var sched []time.Duration
	switch *arr {
	case "poisson":
		sched = arrival.PoissonSchedule(*rate, total, rand.New(rand.NewPCG(1, 2)))
	case "constant":
		sched = arrival.ConstantSchedule(*rate, total)
	default:
		return fmt.Errorf("-arrival %q: want poisson or constant", *arr)
	}
	c, err := client.New(client.Config{BaseURL: *url, Model: "bench"})
	if err != nil {
		return err
	}
	defer c.Close()
	wl := workload.WorkloadFunc(func(i int) workload.Request {
		return workload.Request{Index: i, PromptIDs: promptIDs, InputTokens: len(promptIDs), OutputTokens: *tokens}
	})
	start := time.Now().Add(50 * time.Millisecond)
	measureFrom := start.Add(*warm)
	rec := observe.NewRecorder(measureFrom, *dur, observe.PerRequestLimits{}, observe.LengthCheck{Tolerance: 0.01})
	d := dispatch.OpenLoop{Schedule: sched, Start: start, Workload: wl, Sink: rec, Sender: dispatch.Sender{Doer: c, Wait: mode}}

	// CPU over the measured window: sampled when it opens, and when the
	// dispatch (its last send, then the drain) ends.
	cpuAt := make(chan time.Duration, 1)
	go func() {
		time.Sleep(time.Until(measureFrom))
		cpuAt <- selfCPU()
	}()
	res, err := d.Run(context.Background())
	if err != nil {
		return err
	}
	cpu1, wall := selfCPU(), time.Since(measureFrom)
	cpu := cpu1 - <-cpuAt
	st, _ := rec.Summary()
	n := float64(st.Requests.Sent)
	failed := st.Requests.Failed + st.Requests.Unfinished
	if failed > 0 {
		return fmt.Errorf("%d of %d requests failed: %v", failed, st.Requests.Sent, st.Errors)
	}
	return emit(*out, result{Kind: "lag", Label: *label, Mode: mode.String(), Rate: *rate, Vals: map[string]float64{
		"sent": n, "dropped": float64(res.Dropped),
		"lag_p50_ms": st.SendLag.P50, "lag_p99_ms": st.SendLag.P99, "lag_max_ms": st.SendLag.Max,
		"cpu_s": cpu.Seconds(), "wall_s": wall.Seconds(),
		"cpu_us_per_req": float64(cpu.Microseconds()) / n,
		"cpu_cores":      cpu.Seconds() / wall.Seconds(),
	}})
}

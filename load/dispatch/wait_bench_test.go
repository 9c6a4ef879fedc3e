//go:build linux

package dispatch

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/stats"
	"github.com/llmslo/llmslo/load/workload"
)

// BenchmarkDispatchWait compares the wait modes side by side at 1,000,
// 5,000 and 10,000 req/s with a Doer that returns at once: send lag p50,
// p99 and max in µs, and the process's CPU per send (cpu-µs/send), which is
// what a mode costs. Run with -count to interleave the modes' repeats.
func BenchmarkDispatchWait(b *testing.B) {
	doer := DoerFunc(func(ctx context.Context, req workload.Request, out *client.Outcome) {
		out.Sent = time.Now()
		out.First, out.Last = out.Sent, out.Sent
		out.TokenEvents, out.CompletionTokens = 1, 1
	})
	for _, rate := range []float64{1000, 5000, 10000} {
		for _, mode := range []WaitMode{WaitTimer, WaitFine, WaitSpin} {
			b.Run("rate="+strconv.FormatFloat(rate, 'g', -1, 64)+"/wait="+mode.String(), func(b *testing.B) {
				lag := stats.NewHistogram()
				var cpu time.Duration
				sends := 0
				for b.Loop() {
					sched := arrival.ConstantSchedule(rate, 500*time.Millisecond)
					rec := &lagRecorder{lag: lag}
					d := OpenLoop{Schedule: sched, Start: time.Now(), Workload: indexWorkload(), Sink: rec, Sender: Sender{Doer: doer, Wait: mode}}
					c0 := processCPU()
					if _, err := d.Run(context.Background()); err != nil {
						b.Fatal(err)
					}
					cpu += processCPU() - c0
					sends += len(sched)
				}
				b.ReportMetric(float64(lag.Quantile(50).Microseconds()), "lag-p50-µs")
				b.ReportMetric(float64(lag.Quantile(99).Microseconds()), "lag-p99-µs")
				b.ReportMetric(float64(lag.Max().Microseconds()), "lag-max-µs")
				b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(sends), "cpu-µs/send")
			})
		}
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

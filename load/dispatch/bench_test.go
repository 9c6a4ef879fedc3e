package dispatch

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/stats"
	"github.com/llmslo/llmslo/load/workload"
)

// lagRecorder keeps only the send lag, so the benchmark measures the
// dispatcher and nothing downstream of it.
type lagRecorder struct {
	mu  sync.Mutex
	lag *stats.Histogram
}

func (r *lagRecorder) Started(time.Time) {}
func (r *lagRecorder) Dropped(time.Time) {}
func (r *lagRecorder) Record(o *client.Outcome, _ time.Time) {
	r.mu.Lock()
	r.lag.Record(o.Sent.Sub(o.Intended))
	r.mu.Unlock()
}

// BenchmarkDispatchSendLag measures the dispatcher's own send lag (sent −
// intended) at 1,000 and 5,000 req/s, with a Doer that returns at once so
// that only the dispatcher is measured. Reported: lag p50 and p99 in µs.
func BenchmarkDispatchSendLag(b *testing.B) {
	for _, rate := range []float64{1000, 5000} {
		b.Run("rate="+strconv.FormatFloat(rate, 'g', -1, 64), func(b *testing.B) {
			doer := DoerFunc(func(ctx context.Context, req workload.Request, out *client.Outcome) {
				out.Sent = time.Now()
				out.First, out.Last = out.Sent, out.Sent
				out.TokenEvents, out.CompletionTokens = 1, 1
			})
			lag := stats.NewHistogram()
			for b.Loop() {
				sched := arrival.ConstantSchedule(rate, 500*time.Millisecond)
				start := time.Now()
				rec := &lagRecorder{lag: lag}
				d := OpenLoop{Schedule: sched, Start: start, Workload: indexWorkload(), Sink: rec, Sender: Sender{Doer: doer}}
				if _, err := d.Run(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(lag.Quantile(50).Microseconds()), "lag-p50-µs")
			b.ReportMetric(float64(lag.Quantile(99).Microseconds()), "lag-p99-µs")
			b.ReportMetric(float64(lag.Max().Microseconds()), "lag-max-µs")
		})
	}
}

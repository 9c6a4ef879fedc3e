package load

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// busyLoops keeps n goroutines busy until the returned stop is called: a client
// process whose CPU is taken by other work.
func busyLoops(n int) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for {
				select {
				case <-quit:
					return
				default:
				}
				for i := 0; i < 1_000_000; i++ {
					x += i ^ x
				}
			}
		}()
	}
	return func() { close(quit); wg.Wait() }
}

func saturationPlan(t *testing.T, rate float64, d time.Duration) Plan {
	srv := newFakeServer(t, fakeConfig{Tokens: 1})
	th := DefaultThresholds()
	th.MinTailSamples = 0
	return Plan{Doer: engineClient(t, srv.URL), Workload: fixedWorkload(4, 1), Rates: []float64{rate},
		Arrival: Arrival{Kind: ArrivalConstant}, Duration: d, SLOs: mustSLOs(t, "error_rate<=1%"), Thresholds: th}
}

func TestClientSaturationFiresWhenTheDispatcherIsStarved(t *testing.T) {
	// One P shared with four busy goroutines: the dispatcher waits for the
	// scheduler before each send, as a load generator on a busy core does.
	p := saturationPlan(t, 200, time.Second)
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	stop := busyLoops(4)
	rep, err := Run(context.Background(), p)
	stop()
	require.NoError(t, err)
	s := rep.Steps[0]
	require.True(t, s.HasHazard(HazardClientSaturation), "hazards %+v, send lag %+v, client %+v", s.Hazards, s.SendLag, s.Client)
	assert.Equal(t, VerdictInvalid, s.Verdict)
	assert.Greater(t, s.SendLag.P99, 5.0)
	assert.Greater(t, s.Client.SchedLatencyP99Ms, 5.0)
	assert.Equal(t, 1, s.Client.GOMAXPROCS)
}

func TestClientSaturationQuietAtAModestRate(t *testing.T) {
	p := saturationPlan(t, 50, 3*time.Second)
	rep, err := Run(context.Background(), p)
	require.NoError(t, err)
	s := rep.Steps[0]
	assert.False(t, s.HasHazard(HazardClientSaturation), "hazards %+v, send lag %+v, client %+v", s.Hazards, s.SendLag, s.Client)
	assert.Equal(t, VerdictPass, s.Verdict)
}

func TestClientSaturationFiresOnDrops(t *testing.T) {
	srv := newFakeServer(t, fakeConfig{Tokens: 5, TTFT: 100 * time.Millisecond})
	th := DefaultThresholds()
	th.MinTailSamples, th.MaxSendLagP99, th.MaxSchedLatencyP99 = 0, 0, 0
	p := Plan{Doer: engineClient(t, srv.URL), Workload: fixedWorkload(4, 5), Rates: []float64{50},
		Arrival: Arrival{Kind: ArrivalConstant}, Duration: 500 * time.Millisecond, MaxInFlight: 2,
		SLOs: mustSLOs(t, "error_rate<=1%"), Thresholds: th}
	rep, err := Run(context.Background(), p)
	require.NoError(t, err)
	s := rep.Steps[0]
	assert.Positive(t, s.Requests.Dropped)
	assert.True(t, s.HasHazard(HazardClientSaturation), "%+v", s.Hazards)
	assert.Contains(t, s.Hazards[0].Message, "dropped by the in-flight cap")
}

// BenchmarkDispatchSendLag measures the dispatcher's own send lag (sent −
// intended) at 1,000 and 5,000 req/s, with a Doer that returns at once so
// that only the dispatcher is measured. Reported: lag p50 and p99 in µs.
func BenchmarkDispatchSendLag(b *testing.B) {
	for _, rate := range []float64{1000, 5000} {
		b.Run("rate="+strconv.FormatFloat(rate, 'g', -1, 64), func(b *testing.B) {
			doer := DoerFunc(func(ctx context.Context, req Request, out *Outcome) {
				out.Sent = time.Now()
				out.First, out.Last = out.Sent, out.Sent
				out.TokenEvents, out.CompletionTokens = 1, 1
			})
			lag := NewHistogram()
			for b.Loop() {
				sched := ConstantSchedule(rate, 500*time.Millisecond)
				start := time.Now()
				rec := NewRecorder(start, time.Second, PerRequestLimits{}, LengthCheck{})
				d := Dispatch{Schedule: sched, Start: start, Workload: fixedWorkload(1, 1), Doer: doer, Recorder: rec}
				if _, err := d.Run(context.Background()); err != nil {
					b.Fatal(err)
				}
				rec.mu.Lock()
				lag.Merge(rec.lag)
				rec.mu.Unlock()
			}
			b.ReportMetric(float64(lag.Quantile(50).Microseconds()), "lag-p50-µs")
			b.ReportMetric(float64(lag.Quantile(99).Microseconds()), "lag-p99-µs")
			b.ReportMetric(float64(lag.Max().Microseconds()), "lag-max-µs")
		})
	}
}

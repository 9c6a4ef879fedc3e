package observe

import (
	"math"
	"runtime"
	"runtime/metrics"
	"time"

	"github.com/llmslo/llmslo/load/report"
)

const schedLatencyMetric = "/sched/latencies:seconds"

// Monitor measures the client over a window: StartMonitor takes a snapshot
// and Stop the difference. It starts no goroutine.
type Monitor struct {
	wall  time.Time
	cpu   time.Duration
	sched *metrics.Float64Histogram
}

// StartMonitor snapshots the process CPU time and the scheduler-latency
// histogram now.
func StartMonitor() *Monitor {
	return &Monitor{wall: time.Now(), cpu: processCPU(), sched: readSchedLatencies()}
}

// Stop returns the statistics for the window since StartMonitor.
func (m *Monitor) Stop() report.ClientStats {
	wall := time.Since(m.wall)
	cpu := processCPU() - m.cpu
	procs := runtime.GOMAXPROCS(0)
	stats := report.ClientStats{GOMAXPROCS: procs}
	if wall > 0 {
		stats.CPUUtilization = cpu.Seconds() / (wall.Seconds() * float64(procs))
	}
	stats.SchedLatencyP99Ms = histogramDeltaQuantile(m.sched, readSchedLatencies(), 0.99) * 1000
	return stats
}

func readSchedLatencies() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: schedLatencyMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	return s[0].Value.Float64Histogram()
}

// histogramDeltaQuantile returns the q-quantile (q in (0,1]) of the
// observations added between two readings of the same cumulative runtime
// histogram, as the upper edge of the bucket that holds it (the lower edge
// when the upper is +Inf). It returns 0 when nothing was added.
func histogramDeltaQuantile(before, after *metrics.Float64Histogram, q float64) float64 {
	if after == nil {
		return 0
	}
	delta := make([]uint64, len(after.Counts))
	var total uint64
	for i, c := range after.Counts {
		if before != nil && i < len(before.Counts) && len(before.Counts) == len(after.Counts) {
			c -= min(c, before.Counts[i])
		}
		delta[i] = c
		total += c
	}
	if total == 0 {
		return 0
	}
	target := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for i, c := range delta {
		seen += c
		if seen >= max(target, 1) {
			upper := after.Buckets[i+1]
			if math.IsInf(upper, 1) {
				return after.Buckets[i]
			}
			return upper
		}
	}
	return 0
}

package load

import (
	"math"
	"runtime"
	"runtime/metrics"
	"time"
)

// ClientStats says how busy the load generator itself was during a step:
// a saturated client delays sends and inflates every latency it measures.
type ClientStats struct {
	// CPUUtilization is the process's CPU time (user + system) over the
	// window divided by wall time × GOMAXPROCS: 1 means every P was busy
	// the whole time. It can exceed 1 slightly when threads outside the
	// Go scheduler (cgo, the kernel's accounting granularity) add time.
	CPUUtilization float64 `json:"cpu_utilization"`
	// SchedLatencyP99Ms is the 99th percentile, in milliseconds, of the
	// time goroutines spent runnable before they ran during the window
	// (runtime/metrics /sched/latencies:seconds, which samples about one
	// transition in eight), reported as the upper edge of the runtime's
	// histogram bucket: buckets are a quarter of a power of two wide, so
	// the figure errs high by up to 25% and never low.
	SchedLatencyP99Ms float64 `json:"sched_latency_p99_ms"`
	// GOMAXPROCS is the value when the window ended.
	GOMAXPROCS int `json:"gomaxprocs"`
}

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
func (m *Monitor) Stop() ClientStats {
	wall := time.Since(m.wall)
	cpu := processCPU() - m.cpu
	procs := runtime.GOMAXPROCS(0)
	stats := ClientStats{GOMAXPROCS: procs}
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

package stats

import (
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The range and precision every Histogram records with. Latencies outside
// the range are clamped into it and counted (see Histogram.Clamped).
const (
	histMin     = time.Microsecond
	histMax     = time.Hour
	histSigFigs = 3
)

// Histogram records durations from 1µs to 1h with 3 significant digits,
// in microsecond units, on an HDR histogram: memory is fixed (about 190 KB)
// whatever the number of observations, and every quantile is within 0.1% of
// the exact order statistic.
//
// Quantiles use the nearest-rank definition: the p-th percentile of n
// observations is the ceil(p/100·n)-th smallest. Values come back at HDR
// resolution as the highest value equivalent to the order statistic, so a
// percentile never understates a latency; they are capped at the exact
// maximum. Count, Mean and Max are exact.
//
// A Histogram is not safe for concurrent use.
type Histogram struct {
	h       *hdrhistogram.Histogram
	sum     float64 // nanoseconds of the (clamped) observations
	max     time.Duration
	clamped int64
}

// NewHistogram returns an empty Histogram.
func NewHistogram() *Histogram {
	return &Histogram{h: hdrhistogram.New(1, int64(histMax/time.Microsecond), histSigFigs)}
}

// Record adds one observation. A value below 1µs is recorded as 1µs and one
// above 1h as 1h; both are counted by Clamped.
func (h *Histogram) Record(d time.Duration) {
	if d < histMin {
		d = histMin
		h.clamped++
	} else if d > histMax {
		d = histMax
		h.clamped++
	}
	us := (d + time.Microsecond/2) / time.Microsecond
	// Within the range by construction, so RecordValue cannot fail.
	_ = h.h.RecordValue(int64(us))
	h.sum += float64(d)
	if d > h.max {
		h.max = d
	}
}

// Count is the number of observations.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Clamped is the number of observations that fell outside [1µs, 1h] and
// were recorded at the nearer end of the range.
func (h *Histogram) Clamped() int64 { return h.clamped }

// Quantile returns the p-th percentile, p in [0,100] (nearest rank; p=0 is
// the smallest observation). It returns 0 when the histogram is empty.
func (h *Histogram) Quantile(p float64) time.Duration {
	n := h.Count()
	if n == 0 || math.IsNaN(p) {
		return 0
	}
	return h.valueAtRank(nearestRank(p, n))
}

// nearestRank is the 1-based rank of the p-th percentile of n observations:
// ceil(p/100·n), at least 1 and at most n.
func nearestRank(p float64, n int64) int64 {
	r := int64(math.Ceil(p / 100 * float64(n)))
	// p/100·n may land a hair above an integer in floating point
	// (for example 0.95·100); step back when the integer is within 1e-9.
	if r > 1 && float64(r-1) >= p/100*float64(n)-1e-9 {
		r--
	}
	return min(max(r, 1), n)
}

// valueAtRank returns the r-th smallest observation (1-based) at HDR
// resolution, capped at the exact maximum.
func (h *Histogram) valueAtRank(r int64) time.Duration {
	n := h.Count()
	// ValueAtPercentile turns a percentile into the rank
	// floor(pct/100·n + 0.5); pct = 100·r/n gives r exactly because the
	// floating-point error is far below the 0.5 margin.
	us := h.h.ValueAtPercentile(100 * float64(r) / float64(n))
	return min(time.Duration(us)*time.Microsecond, h.max)
}

// Mean is the exact mean of the (clamped) observations; 0 when empty.
func (h *Histogram) Mean() time.Duration {
	n := h.Count()
	if n == 0 {
		return 0
	}
	return time.Duration(math.Round(h.sum / float64(n)))
}

// Max is the exact largest (clamped) observation; 0 when empty.
func (h *Histogram) Max() time.Duration { return h.max }

// CountAbove returns how many observations are strictly greater than d, at
// histogram resolution: observations recorded in the same HDR bucket as d
// count as equal to it.
func (h *Histogram) CountAbove(d time.Duration) int64 {
	if h.Count() == 0 {
		return 0
	}
	if d < histMin {
		return h.Count() // every observation is at least 1µs
	}
	us := int64((min(d, histMax) + time.Microsecond/2) / time.Microsecond)
	var above int64
	for _, b := range h.h.Distribution() {
		if b.From > us {
			above += b.Count
		}
	}
	return above
}

// Merge adds every observation of o to h. o is unchanged.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.Count() == 0 {
		return
	}
	h.h.Merge(o.h)
	h.sum += o.sum
	h.clamped += o.clamped
	h.max = max(h.max, o.max)
}

// QuantileCI returns a 95% distribution-free confidence interval for the
// p-th percentile: the order statistics at the ranks QuantileCIRanks gives,
// at histogram resolution. ok is false when there are too few observations
// for a two-sided interval (see MinSamplesForCI).
func (h *Histogram) QuantileCI(p float64) (lo, hi time.Duration, ok bool) {
	return h.QuantileCIAt(p, 0.95)
}

// QuantileCIAt is QuantileCI at confidence conf.
func (h *Histogram) QuantileCIAt(p, conf float64) (lo, hi time.Duration, ok bool) {
	rlo, rhi, ok := QuantileCIRanks(h.Count(), p, conf)
	if !ok {
		return 0, 0, false
	}
	return h.valueAtRank(rlo), h.valueAtRank(rhi), true
}

// Summary is a histogram's headline figures in milliseconds, as in the
// JSON report.
type Summary struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   float64 `json:"max"`
}

// Summary returns the count, mean, p50, p90, p95, p99, p99.9 and max.
func (h *Histogram) Summary() Summary {
	return Summary{
		Count: h.Count(),
		Mean:  histMillis(h.Mean()),
		P50:   histMillis(h.Quantile(50)),
		P90:   histMillis(h.Quantile(90)),
		P95:   histMillis(h.Quantile(95)),
		P99:   histMillis(h.Quantile(99)),
		P999:  histMillis(h.Quantile(99.9)),
		Max:   histMillis(h.Max()),
	}
}

// histMillis converts a duration to float milliseconds.
func histMillis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

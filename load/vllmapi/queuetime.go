package vllmapi

import (
	"math"
	"sort"

	dto "github.com/prometheus/client_model/go"
)

// Bucket is one cumulative bucket of a Prometheus histogram: Count
// observations at or below UpperBound seconds.
type Bucket struct {
	UpperBound float64
	Count      float64
}

// Buckets are a histogram's cumulative buckets, in ascending order. A
// sample holds them by pointer, so that samples compare with ==.
type Buckets struct{ B []Bucket }

// histBuckets sums a histogram family's cumulative buckets over its
// series (engines, models), by upper bound, in ascending order.
func histBuckets(f *dto.MetricFamily) *Buckets {
	by := map[float64]float64{}
	for _, m := range f.GetMetric() {
		h := m.GetHistogram()
		if h == nil {
			continue
		}
		inf := false
		for _, b := range h.GetBucket() {
			by[b.GetUpperBound()] += float64(b.GetCumulativeCount())
			inf = inf || math.IsInf(b.GetUpperBound(), 1)
		}
		if !inf { // the count is the +Inf bucket
			by[math.Inf(1)] += float64(h.GetSampleCount())
		}
	}
	out := make([]Bucket, 0, len(by))
	for ub, c := range by {
		out = append(out, Bucket{UpperBound: ub, Count: c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UpperBound < out[j].UpperBound })
	return &Buckets{B: out}
}

// QueueTime is what the server's queue-time histogram says of a window:
// Count requests were first scheduled in it; P95S is the upper edge of the
// bucket holding their 95th percentile, and MaxS that of the highest
// bucket holding any (an upper bound on the worst wait). Over says the
// worst wait lay beyond the last finite edge, MaxS.
type QueueTime struct {
	Count float64 `json:"count"`
	P95S  float64 `json:"p95_s"`
	MaxS  float64 `json:"max_s"`
	Over  bool    `json:"over_max,omitempty"`
}

// queueTimeDelta reads the histogram's rise between two scrapes.
func queueTimeDelta(first, last *Buckets) QueueTime {
	before := map[float64]float64{}
	if first != nil {
		for _, b := range first.B {
			before[b.UpperBound] = b.Count
		}
	}
	var q QueueTime
	delta := make([]Bucket, 0, len(last.B))
	for _, b := range last.B {
		delta = append(delta, Bucket{b.UpperBound, b.Count - before[b.UpperBound]})
	}
	if len(delta) == 0 || delta[len(delta)-1].Count <= 0 {
		return q
	}
	q.Count = delta[len(delta)-1].Count
	edge := func(i int) (float64, bool) {
		if math.IsInf(delta[i].UpperBound, 1) {
			if i == 0 {
				return 0, true
			}
			return delta[i-1].UpperBound, true
		}
		return delta[i].UpperBound, false
	}
	p95Found := false
	for i, b := range delta {
		below := 0.0
		if i > 0 {
			below = delta[i-1].Count
		}
		if !p95Found && b.Count >= 0.95*q.Count {
			q.P95S, _ = edge(i)
			p95Found = true
		}
		if b.Count > below {
			q.MaxS, q.Over = edge(i)
		}
	}
	return q
}

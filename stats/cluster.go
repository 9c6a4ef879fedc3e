package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Clusters keeps coarse counts of a step's observations in one-second
// clusters (by when each was observed), so that a percentile's interval can
// allow for observations that are not independent.
//
// The order-statistic interval of QuantileCI assumes independent
// observations. Latencies measured at the same moment are not: a prefill
// step that stalls every running stream lengthens one inter-token gap of each
// of them at once, and a queue that builds for a few seconds delays every
// request that arrives meanwhile. Pooled, such observations carry less
// information than their count says, and an interval that counts each one
// is too narrow. DesignEffect measures by how much, from how unevenly the
// observations above a percentile fall across clusters; QuantileCIClustered
// widens the interval by it (Kish's design effect, as survey statistics
// uses for cluster samples).
//
// Counts are kept in logarithmic buckets 2% wide, over the range of
// Histogram; a cluster stores only the span of buckets it uses. A Clusters
// is not safe for concurrent use.
type Clusters struct {
	secs []clusterCounts
	n    int64
}

// clusterCounts is one cluster's bucket counts from bucket first on.
type clusterCounts struct {
	first  int
	counts []uint32
	n      int64
}

// clusterRatio is the buckets' width: each is 2% wider than the last.
const clusterRatio = 1.02

var clusterLogRatio = math.Log(clusterRatio)

// clusterBucket is the bucket of d: values in [1µs·1.02^b, 1µs·1.02^(b+1)).
func clusterBucket(d time.Duration) int {
	us := float64(min(max(d, histMin), histMax)) / float64(time.Microsecond)
	return int(math.Log(us) / clusterLogRatio)
}

// NewClusters returns empty clusters.
func NewClusters() *Clusters { return &Clusters{} }

// Record adds observation d to the cluster of second sec (0-based; a
// negative second counts as 0).
func (c *Clusters) Record(sec int, d time.Duration) { c.add(sec, clusterBucket(d), 1) }

// add counts k observations in bucket b of second sec.
func (c *Clusters) add(sec, b int, k uint32) {
	sec = max(sec, 0)
	for len(c.secs) <= sec {
		c.secs = append(c.secs, clusterCounts{})
	}
	s := &c.secs[sec]
	switch {
	case s.counts == nil:
		s.first = b
		s.counts = make([]uint32, 1, 8)
	case b < s.first:
		grown := make([]uint32, s.first-b+len(s.counts))
		copy(grown[s.first-b:], s.counts)
		s.counts, s.first = grown, b
	case b >= s.first+len(s.counts):
		s.counts = append(s.counts, make([]uint32, b-s.first-len(s.counts)+1)...)
	}
	s.counts[b-s.first] += k
	s.n += int64(k)
	c.n += int64(k)
}

// Count is the number of observations.
func (c *Clusters) Count() int64 {
	if c == nil {
		return 0
	}
	return c.n
}

// above counts the cluster's observations in buckets wholly above q's.
func (s *clusterCounts) above(qb int) int64 {
	var k int64
	for i := max(qb+1-s.first, 0); i < len(s.counts); i++ {
		k += int64(s.counts[i])
	}
	return k
}

// minClusters is the fewest clusters a design effect is estimated from; a
// variance of cluster totals over fewer is itself too uncertain to use.
const minClusters = 8

// DesignEffect is the variance of the fraction of observations above q
// over its variance under independence, as estimated from the clusters
// (the cluster-robust variance of a ratio estimator): how many times fewer
// independent observations the step holds, at that threshold, than its
// count. Correlation may last longer than a second, so clusters of 1, 2, 4
// and 8 seconds are tried and the largest effect is taken, among widths
// that leave at least eight clusters. It is 1 when the observations look
// independent, when there are too few clusters to tell, or when none or
// all are above q; never below 1.
func (c *Clusters) DesignEffect(q time.Duration) float64 {
	if c == nil || c.n == 0 {
		return 1
	}
	qb := clusterBucket(q)
	ks := make([]int64, len(c.secs))
	var k int64
	for i := range c.secs {
		ks[i] = c.secs[i].above(qb)
		k += ks[i]
	}
	p := float64(k) / float64(c.n)
	if k == 0 || k == c.n {
		return 1
	}
	srs := float64(c.n) * p * (1 - p)
	deff := 1.0
	for w := 1; w <= 8; w *= 2 {
		var ss float64
		clusters := 0
		for start := 0; start < len(c.secs); start += w {
			var kc, nc int64
			for i := start; i < min(start+w, len(c.secs)); i++ {
				kc += ks[i]
				nc += c.secs[i].n
			}
			if nc == 0 {
				continue
			}
			clusters++
			r := float64(kc) - p*float64(nc)
			ss += r * r
		}
		if clusters < minClusters {
			break
		}
		deff = max(deff, float64(clusters)/float64(clusters-1)*ss/srs)
	}
	return deff
}

// QuantileCIClustered is QuantileCIAt for observations whose design effect
// is deff: the interval of n/deff independent observations, its ranks
// scaled back to the sample, so that it is √deff times as wide. deff ≤ 1 is
// QuantileCIAt. ok is false when n/deff observations are too few for an
// interval.
func (h *Histogram) QuantileCIClustered(p, conf, deff float64) (lo, hi time.Duration, ok bool) {
	if !(deff > 1) {
		return h.QuantileCIAt(p, conf)
	}
	n := h.Count()
	ne := int64(float64(n) / deff)
	rlo, rhi, ok := QuantileCIRanks(ne, p, conf)
	if !ok {
		return 0, 0, false
	}
	// Scale the distances from the percentile's rank, not the ranks: the
	// interval's centre stays where the sample puts it.
	centreE, centre := float64(ne)*p/100, float64(n)*p/100
	scale := float64(n) / float64(ne)
	lo64 := int64(math.Floor(centre - (centreE-float64(rlo))*scale))
	hi64 := int64(math.Ceil(centre + (float64(rhi)-centreE)*scale))
	return h.valueAtRank(min(max(lo64, 1), n)), h.valueAtRank(min(max(hi64, 1), n)), true
}

// Merge adds o's observations to c, second by second: the clusters of
// shards that shared a start time merge into those of the whole schedule.
// o is unchanged.
func (c *Clusters) Merge(o *Clusters) {
	if o == nil {
		return
	}
	for sec, s := range o.secs {
		for i, k := range s.counts {
			if k > 0 {
				c.add(sec, s.first+i, k)
			}
		}
	}
}

// MarshalJSON writes each second as [first bucket, counts…] ([] when
// empty), so that a report read back (a baseline, a shard to merge) can
// estimate design effects again.
func (c *Clusters) MarshalJSON() ([]byte, error) {
	out := make([][]int64, len(c.secs))
	for i, s := range c.secs {
		row := make([]int64, 0, len(s.counts)+1)
		if s.counts != nil {
			row = append(row, int64(s.first))
			for _, k := range s.counts {
				row = append(row, int64(k))
			}
		}
		out[i] = row
	}
	return json.Marshal(out)
}

// UnmarshalJSON restores clusters MarshalJSON wrote.
func (c *Clusters) UnmarshalJSON(b []byte) error {
	var rows [][]int64
	if err := json.Unmarshal(b, &rows); err != nil {
		return err
	}
	fresh := Clusters{}
	for sec, row := range rows {
		if len(row) == 1 {
			return fmt.Errorf("clusters: second %d has a first bucket and no counts", sec)
		}
		for i, k := range row[min(len(row), 1):] {
			b := int(row[0]) + i
			if k < 0 || k > math.MaxUint32 || b < 0 || b > clusterBucket(histMax) {
				return fmt.Errorf("clusters: second %d: bucket %d count %d out of range", sec, b, k)
			}
			if k > 0 {
				fresh.add(sec, b, uint32(k))
			}
		}
		for len(fresh.secs) <= sec {
			fresh.secs = append(fresh.secs, clusterCounts{})
		}
	}
	*c = fresh
	return nil
}

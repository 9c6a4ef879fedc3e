package stats

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
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
// It runs for every observation, so the logarithm comes from the float's
// exponent and a table of its mantissa's (within 1e-6 of math.Log2, far
// inside a bucket's width of 0.029 in log2), not from math.Log.
func clusterBucket(d time.Duration) int {
	us := float64(min(max(d, histMin), histMax)) / float64(time.Microsecond)
	bits := math.Float64bits(us)
	exp := int(bits>>52&0x7ff) - 1023
	frac := bits & (1<<52 - 1)
	i := frac >> (52 - mantissaTableBits)
	// Linear between the table's points: the mantissa's log2 is smooth.
	rest := float64(frac&(1<<(52-mantissaTableBits)-1)) / (1 << (52 - mantissaTableBits))
	l := mantissaLog2[i] + rest*(mantissaLog2[i+1]-mantissaLog2[i])
	return int((float64(exp) + l) / clusterLog2Ratio)
}

const mantissaTableBits = 10

var (
	clusterLog2Ratio = math.Log2(clusterRatio)
	// mantissaLog2[i] is log2(1 + i/1024), i = 0…1024.
	mantissaLog2 = func() []float64 {
		t := make([]float64, 1<<mantissaTableBits+1)
		for i := range t {
			t[i] = math.Log2(1 + float64(i)/(1<<mantissaTableBits))
		}
		return t
	}()
)

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
	lo64, hi64 := scaleRanks(n, ne, p, rlo, rhi)
	return h.valueAtRank(min(max(lo64, 1), n)), h.valueAtRank(min(max(hi64, 1), n)), true
}

// Merge adds o's observations to c, second by second: the clusters of
// shards that shared a start time merge into those of the whole schedule.
// o is unchanged.
func (c *Clusters) Merge(o *Clusters) { c.MergeAt(o, 0, math.MaxInt) }

// MergeAt adds o's observations to c with o's second s counted as second
// at+min(s, secs-1): o is a block of secs seconds that follows at seconds
// of others, and what it observed after its window (gaps that ended while
// it drained) counts in its last second, never in the next block's.
func (c *Clusters) MergeAt(o *Clusters, at, secs int) {
	if o == nil {
		return
	}
	for sec, s := range o.secs {
		for i, k := range s.counts {
			if k > 0 {
				c.add(at+min(sec, secs-1), s.first+i, k)
			}
		}
	}
}

// MarshalJSON writes the clusters as one base64 string of deflated
// varints: for each second, the number of its buckets, then (when there
// are any) its first bucket and their counts. A report read back (a
// baseline, a shard to merge) can then estimate design effects and
// resample again; a 40-second step's five metrics take a few kilobytes.
func (c *Clusters) MarshalJSON() ([]byte, error) {
	var raw []byte
	raw = binary.AppendUvarint(raw, uint64(len(c.secs)))
	for _, s := range c.secs {
		raw = binary.AppendUvarint(raw, uint64(len(s.counts)))
		if len(s.counts) > 0 {
			raw = binary.AppendUvarint(raw, uint64(s.first))
			for _, k := range s.counts {
				raw = binary.AppendUvarint(raw, uint64(k))
			}
		}
	}
	var buf bytes.Buffer
	zw := flateWriters.Get().(*flate.Writer)
	zw.Reset(&buf)
	_, _ = zw.Write(raw) // a bytes.Buffer does not fail
	_ = zw.Close()
	flateWriters.Put(zw)
	return json.Marshal(base64.StdEncoding.EncodeToString(buf.Bytes()))
}

// UnmarshalJSON restores clusters MarshalJSON wrote.
func (c *Clusters) UnmarshalJSON(b []byte) error {
	var enc string
	if err := json.Unmarshal(b, &enc); err != nil {
		return fmt.Errorf("clusters: %w", err)
	}
	z, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return fmt.Errorf("clusters: %w", err)
	}
	// A step of an hour at a million observations a bucket fits well under
	// this; a larger stream is not ours.
	raw, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(z)), 64<<20))
	if err != nil {
		return fmt.Errorf("clusters: %w", err)
	}
	r := bytes.NewReader(raw)
	next := func(what string, limit uint64) (uint64, error) {
		v, err := binary.ReadUvarint(r)
		if err != nil {
			return 0, fmt.Errorf("clusters: %s: %w", what, err)
		}
		if v > limit {
			return 0, fmt.Errorf("clusters: %s %d out of range", what, v)
		}
		return v, nil
	}
	maxBucket := uint64(clusterBucket(histMax))
	secs, err := next("seconds", 1<<20)
	if err != nil {
		return err
	}
	fresh := Clusters{secs: make([]clusterCounts, 0, min(secs, 4096))}
	for sec := range int(secs) {
		fresh.secs = append(fresh.secs, clusterCounts{})
		n, err := next("buckets", maxBucket+1)
		if err != nil {
			return err
		}
		if n == 0 {
			continue
		}
		first, err := next("first bucket", maxBucket+1-n)
		if err != nil {
			return err
		}
		for i := range int(n) {
			k, err := next("count", math.MaxUint32)
			if err != nil {
				return err
			}
			if k > 0 {
				fresh.add(sec, int(first)+i, uint32(k))
			}
		}
	}
	if r.Len() != 0 {
		return fmt.Errorf("clusters: %d bytes after the last second", r.Len())
	}
	*c = fresh
	return nil
}

// Seconds is how many one-second clusters c spans.
func (c *Clusters) Seconds() int {
	if c == nil {
		return 0
	}
	return len(c.secs)
}

// Prefix returns the clusters of c's first secs seconds (sharing their
// counts, which neither may change afterwards): the same observations a
// step cut short at that second would hold.
func (c *Clusters) Prefix(secs int) *Clusters {
	if c == nil || secs >= len(c.secs) {
		return c
	}
	p := &Clusters{secs: c.secs[:max(secs, 0):max(secs, 0)]}
	for _, s := range p.secs {
		p.n += s.n
	}
	return p
}

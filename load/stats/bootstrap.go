package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// RatioBootstrapResamples is how many resamples RatioInterval draws.
const RatioBootstrapResamples = 2000

// minBlocks is the fewest blocks a bootstrap resamples: fewer say too little
// about the spread between them.
const minBlocks = 10

// RatioInterval bounds the ratio of the p-th percentiles of two runs,
// num/den, with a block bootstrap over their clusters: the runs' seconds
// are cut into blocks of 4 s (2 or 1 s when a run is too short for ten),
// blocks are drawn with replacement, and the ratio of the percentiles of
// the drawn observations is taken, RatioBootstrapResamples times; the
// interval is the middle conf of those ratios. Blocks keep together the
// observations that are not independent (those made at the same moment,
// and a queue's few seconds), which is what makes the interval honest
// where an order-statistic interval per run is too narrow.
//
// paired says that both runs sent the same requests on the same schedule
// (the same seed): block i of one run and block i of the other then saw
// the same arrivals, so one draw of block indices serves both, and the
// workload's own variation, common to both, cancels in the ratio. Unpaired
// runs are resampled independently.
//
// The resampling is seeded, so a comparison gives the same interval every
// time. Percentiles are read from the clusters' 2% buckets, placed within
// a bucket by their rank there. ok is false
// when either run has too few blocks or no observation.
func RatioInterval(num, den *Clusters, p, conf float64, paired bool) (lo, hi float64, ok bool) {
	_, lo, hi, ok = RatioEstimate(num, den, p, conf, paired)
	return lo, hi, ok
}

// RatioEstimate is RatioInterval with its point estimate: the ratio of the
// whole runs' percentiles read the way each resample's are (from the
// clusters' buckets), which the interval always holds. A ratio of
// percentiles read another way (the histograms' finer ones) may fall
// outside an interval narrower than one cluster bucket.
func RatioEstimate(num, den *Clusters, p, conf float64, paired bool) (point, lo, hi float64, ok bool) {
	if num.Count() == 0 || den.Count() == 0 || !(p >= 0 && p <= 100) || !(conf > 0 && conf < 1) {
		return 0, 0, 0, false
	}
	secs := min(len(num.secs), len(den.secs))
	width := 4
	for width > 1 && secs/width < minBlocks {
		width /= 2
	}
	if secs/width < minBlocks {
		return 0, 0, 0, false
	}
	// Paired runs get as many blocks each, the shorter padded with empty
	// ones: a slower server's last gaps may end in seconds the baseline's
	// never reached, and they must not be cut off.
	nBlocks, dBlocks := ceilDiv(len(num.secs), width), ceilDiv(len(den.secs), width)
	if paired {
		nBlocks = max(nBlocks, dBlocks)
		dBlocks = nBlocks
	}
	nb, db := num.blocks(width, nBlocks), den.blocks(width, dBlocks)
	rng := rand.New(rand.NewPCG(0x6c6c6d736c6f, uint64(p*1000)))
	pickN, pickD := make([]int, len(nb.totals)), make([]int, len(db.totals))
	ratios := make([]float64, 0, RatioBootstrapResamples)
	for range RatioBootstrapResamples {
		for i := range pickN {
			pickN[i] = rng.IntN(len(nb.totals))
		}
		if paired {
			copy(pickD, pickN)
		} else {
			for i := range pickD {
				pickD[i] = rng.IntN(len(db.totals))
			}
		}
		qn, ok1 := nb.quantile(pickN, p)
		qd, ok2 := db.quantile(pickD, p)
		if ok1 && ok2 && qd > 0 {
			ratios = append(ratios, qn/qd)
		}
	}
	if len(ratios) < RatioBootstrapResamples/2 {
		return 0, 0, 0, false // most draws held no observation: too sparse
	}
	slices.Sort(ratios)
	tail := (1 - conf) / 2
	lo = ratios[int(math.Floor(tail*float64(len(ratios)-1)))]
	hi = ratios[int(math.Ceil((1-tail)*float64(len(ratios)-1)))]
	// A percentile that sits between two modes (the gaps of decode-only
	// steps and of steps with a prompt chunk) can fall in one mode in most
	// resamples and in the other in the whole runs: the interval then
	// stretches to hold the whole runs' ratio, so that it never leaves out
	// the point it is about.
	qn, ok1 := nb.quantile(all(len(nb.totals)), p)
	qd, ok2 := db.quantile(all(len(db.totals)), p)
	if !ok1 || !ok2 || qd <= 0 {
		return 0, 0, 0, false
	}
	point = qn / qd
	return point, min(lo, point), max(hi, point), true
}

// blockSet is a run's bucket counts summed over blocks of seconds, on one
// bucket range.
type blockSet struct {
	first  int
	counts [][]int64 // [block][bucket − first]
	totals []int64
}

// blocks sums c's seconds into n blocks of width seconds; blocks past c's
// last second are empty.
func (c *Clusters) blocks(width, n int) blockSet {
	lo, hi := math.MaxInt, math.MinInt
	for _, s := range c.secs {
		if s.counts != nil {
			lo, hi = min(lo, s.first), max(hi, s.first+len(s.counts))
		}
	}
	bs := blockSet{first: lo, counts: make([][]int64, n), totals: make([]int64, n)}
	for b := range n {
		bs.counts[b] = make([]int64, max(hi-lo, 0))
		for _, s := range c.secs[min(b*width, len(c.secs)):min((b+1)*width, len(c.secs))] {
			for i, k := range s.counts {
				bs.counts[b][s.first+i-lo] += int64(k)
			}
			bs.totals[b] += s.n
		}
	}
	return bs
}

// quantile is the nearest-rank p-th percentile, in microseconds, of the
// observations of the picked blocks. Within its bucket the value is placed
// by its rank there, the bucket's k observations taken as spread evenly
// over its log width (the j-th at (j − ½)/k): read at the bucket's middle,
// every percentile and every ratio of two would move in steps of 2%, and
// a tolerance of 5% would act as one of 6.1% (the third step).
func (bs blockSet) quantile(pick []int, p float64) (float64, bool) {
	var n int64
	for _, b := range pick {
		n += bs.totals[b]
	}
	if n == 0 {
		return 0, false
	}
	rank := nearestRank(p, n)
	var seen int64
	for i := range bs.counts[0] {
		var k int64
		for _, b := range pick {
			k += bs.counts[b][i]
		}
		if seen+k >= rank {
			within := (float64(rank-seen) - 0.5) / float64(k)
			return math.Exp((float64(bs.first+i) + within) * clusterLogRatio), true
		}
		seen += k
	}
	return 0, false
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// all is the indices 0…n−1: every block once.
func all(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

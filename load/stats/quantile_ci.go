package stats

import (
	"math"
)

// exactBinomialMaxN is the largest sample size for which QuantileCIRanks
// sums the exact binomial distribution; above it the normal approximation
// with continuity correction is within one rank of the exact answer.
const exactBinomialMaxN = 100_000

// QuantileCIRanks returns the 1-based ranks lo < hi of the order statistics
// that bound the p-th percentile (p in (0,100)) of n observations with
// confidence at least conf (for example 0.95), whatever the distribution.
//
// The number B of observations below the true percentile is Binomial(n,
// p/100), and the interval [X(lo), X(hi)] covers the percentile when
// lo ≤ B < hi. Each tail gets at most (1−conf)/2: lo is the largest rank with
// P(B < lo) ≤ (1−conf)/2 and hi the smallest with P(B ≥ hi) ≤ (1−conf)/2, so
// the coverage is at least conf. The binomial is summed exactly for n up to
// 100,000, approximated by the normal distribution with continuity
// correction above.
//
// ok is false when no such interval exists within the sample (n too small,
// see MinSamplesForCI) or when an argument is out of range.
func QuantileCIRanks(n int64, p float64, conf float64) (lo, hi int64, ok bool) {
	if n < 1 || !(p > 0 && p < 100) || !(conf > 0 && conf < 1) {
		return 0, 0, false
	}
	q := p / 100
	tail := (1 - conf) / 2
	// With every rank available, the extreme interval [X(1), X(n)] covers
	// with probability 1 − qⁿ − (1−q)ⁿ; each tail must fit on its own.
	if math.Pow(1-q, float64(n)) > tail || math.Pow(q, float64(n)) > tail {
		return 0, 0, false
	}
	if n > exactBinomialMaxN {
		lo, hi = normalCIRanks(n, q, conf)
	} else {
		lo, hi = exactCIRanks(n, q, tail)
	}
	if lo < 1 || hi > n || lo >= hi {
		return 0, 0, false
	}
	return lo, hi, true
}

// exactCIRanks walks the binomial pmf in from both ends.
func exactCIRanks(n int64, q, tail float64) (lo, hi int64) {
	nf := float64(n)
	lgn, _ := math.Lgamma(nf + 1)
	lq, l1q := math.Log(q), math.Log1p(-q)
	pmf := func(k int64) float64 {
		kf := float64(k)
		a, _ := math.Lgamma(kf + 1)
		b, _ := math.Lgamma(nf - kf + 1)
		return math.Exp(lgn - a - b + kf*lq + (nf-kf)*l1q)
	}
	// Start each walk √(35n) out from the mean: by Hoeffding's inequality
	// the mass beyond is below exp(−70) ≈ 4e-31, far too little to move a
	// comparison with a tail of a few percent, and the walk stays short
	// for large n.
	far := int64(math.Sqrt(35*nf)) + 2
	mean := int64(nf * q)
	// lo−1 is the largest k with P(B ≤ k) ≤ tail.
	var cdf float64
	k := max(0, mean-far)
	for ; k <= n; k++ {
		cdf += pmf(k)
		if cdf > tail {
			break
		}
	}
	lo = k // P(B ≤ k−1) ≤ tail < P(B ≤ k)
	// hi is the smallest j with P(B ≥ j) ≤ tail.
	var sf float64
	j := min(n, mean+far)
	for ; j >= 0; j-- {
		sf += pmf(j)
		if sf > tail {
			break
		}
	}
	hi = j + 1 // P(B ≥ j+1) ≤ tail < P(B ≥ j)
	return lo, hi
}

// normalCIRanks solves the same two tail conditions with
// P(B ≤ k) ≈ Φ((k + ½ − nq)/σ).
func normalCIRanks(n int64, q, conf float64) (lo, hi int64) {
	z := math.Sqrt2 * math.Erfinv(conf)
	mean := float64(n) * q
	sd := math.Sqrt(float64(n) * q * (1 - q))
	lo = int64(math.Floor(mean-0.5-z*sd)) + 1
	hi = int64(math.Ceil(mean + 0.5 + z*sd))
	return lo, hi
}

// MinSamplesForCI is the smallest number of observations for which
// QuantileCIRanks(n, p, conf) gives an interval: a run that is to say
// anything conclusive about the p-th percentile needs at least this many
// requests (368 for p99 at 95%, 72 for p95, 6 for p50). It returns 0 when
// p or conf is out of range.
func MinSamplesForCI(p, conf float64) int64 {
	if !(p > 0 && p < 100) || !(conf > 0 && conf < 1) {
		return 0
	}
	q := p / 100
	tail := math.Log((1 - conf) / 2)
	// Both tails need qⁿ ≤ tail and (1−q)ⁿ ≤ tail.
	n := int64(math.Ceil(max(tail/math.Log(q), tail/math.Log1p(-q))))
	n = max(n, 1)
	// Settle floating-point doubt at the boundary with the ranks themselves.
	for n > 1 {
		if _, _, ok := QuantileCIRanks(n-1, p, conf); !ok {
			break
		}
		n--
	}
	for {
		if _, _, ok := QuantileCIRanks(n, p, conf); ok {
			return n
		}
		n++
	}
}

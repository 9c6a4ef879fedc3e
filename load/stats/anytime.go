package stats

import (
	"math"
	"time"
)

// Anytime-valid intervals (confidence sequences).
//
// A fixed-sample 95% interval covers the truth 95% of the time when it is
// looked at once. A step that looks every second and stops the first time
// an interval clears a limit gets wrong verdicts far more often: every look
// is another chance for noise to cross (optional stopping). The intervals
// here hold at every look at once: the chance that any of them, at any
// sample size, misses the truth is at most 1 − conf (Howard, Ramdas,
// McAuliffe and Sekhon, Annals of Statistics 2021; for quantiles, Howard
// and Ramdas, Bernoulli 2022).
//
// Each rests on one test martingale: for Bernoulli observations with
// success probability π, the likelihood ratio of a Beta(cπ, c(1−π))
// mixture of alternatives against π. Under π its expectation is 1 at every
// n, so by Ville's inequality it ever reaches 1/(1−conf) with probability
// at most 1 − conf. A value of π is left out of the interval once its
// martingale has reached that height. For a percentile, π is the
// percentile's level and the Bernoulli is "this observation lies below the
// true percentile": the count below it is binomial, as for QuantileCIRanks.
//
// The mixture's concentration c sets the sample size at which the interval
// is narrowest; tunedFor names that size (MixtureConcentration).

// MixtureConcentration is the Beta prior's concentration c that makes the
// boundary narrowest near tunedFor observations at confidence conf. It
// follows the normal mixture's optimum (Howard et al. 2021, eq. (3.10)):
// the prior's weight equals the data's at tunedFor/(2·ln(1/α) + ln(1 +
// 2·ln(1/α))) observations, α = 1 − conf.
func MixtureConcentration(tunedFor int64, conf float64) float64 {
	l := 2 * math.Log(1/(1-conf))
	return max(float64(tunedFor), 1) / (l + math.Log1p(l))
}

// mixtureLogLR is the log of the mixture martingale after k successes in n
// Bernoulli(pi) trials, with prior concentration c.
func mixtureLogLR(k, n int64, pi, c float64) float64 {
	a, b := c*pi, c*(1-pi)
	kf, rf := float64(k), float64(n-k)
	return lbeta(a+kf, b+rf) - lbeta(a, b) - kf*math.Log(pi) - rf*math.Log1p(-pi)
}

func lbeta(a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return la + lb - lab
}

// QuantileCSRanks is the anytime-valid counterpart of QuantileCIRanks: the
// 1-based ranks of the order statistics that bound the p-th percentile of
// n observations, such that the bounds hold at every n at once with
// probability at least conf. hasLo (hasHi) is false when the sample holds
// no order statistic low (high) enough yet: that side is unbounded. With
// B the count below the true percentile, the bounds hold while lo ≤ B < hi,
// and B's martingale (mixtureLogLR) stays under its boundary exactly for
// the counts in [lo, hi−1]: its logarithm is convex in the count.
func QuantileCSRanks(n int64, p, conf float64, tunedFor int64) (lo, hi int64, hasLo, hasHi bool) {
	if n < 1 || !(p > 0 && p < 100) || !(conf > 0 && conf < 1) {
		return 0, 0, false, false
	}
	q := p / 100
	c := MixtureConcentration(tunedFor, conf)
	bound := math.Log(1 / (1 - conf))
	inside := func(k int64) bool { return mixtureLogLR(k, n, q, c) < bound }
	mid := min(max(int64(math.Round(float64(n)*q)), 0), n)
	if !inside(mid) {
		return 0, 0, false, false // cannot happen at the maximum likelihood count; kept for safety
	}
	// The smallest inside count: inside is false below it, true from it to mid.
	kLo := searchFirst(0, mid, inside)
	// The largest inside count: true from mid up to it, false above.
	kHi := searchFirst(mid, n+1, func(k int64) bool { return k > n || !inside(k) }) - 1
	return kLo, kHi + 1, kLo >= 1, kHi+1 <= n
}

// searchFirst is the smallest k in [a, b] with f(k) true, f monotone
// (false then true); b when none in [a, b) is.
func searchFirst(a, b int64, f func(int64) bool) int64 {
	for a < b {
		m := a + (b-a)/2
		if f(m) {
			b = m
		} else {
			a = m + 1
		}
	}
	return a
}

// QuantileCS bounds the p-th percentile with an anytime-valid interval
// (QuantileCSRanks), widened as QuantileCIClustered widens a fixed one
// when the design effect deff is over 1: the ranks of n/deff independent
// observations, scaled back about the percentile's rank. A side without a
// bound yet is reported by hasLo or hasHi false.
func (h *Histogram) QuantileCS(p, conf, deff float64, tunedFor int64) (lo, hi time.Duration, hasLo, hasHi bool) {
	n := h.Count()
	ne := n
	if deff > 1 {
		ne = int64(float64(n) / deff)
	}
	rlo, rhi, hasLo, hasHi := QuantileCSRanks(ne, p, conf, tunedFor)
	if !hasLo && !hasHi {
		return 0, 0, false, false
	}
	lo64, hi64 := scaleRanks(n, ne, p, rlo, rhi)
	if hasLo {
		lo = h.valueAtRank(min(max(lo64, 1), n))
	}
	if hasHi {
		hi = h.valueAtRank(min(max(hi64, 1), n))
	}
	return lo, hi, hasLo, hasHi
}

// scaleRanks maps ranks among ne effective observations to ranks among
// the n observed: the distances from the percentile's rank are scaled, so
// that the interval's centre stays where the sample puts it.
func scaleRanks(n, ne int64, p float64, rlo, rhi int64) (lo, hi int64) {
	if ne == n || ne == 0 {
		return rlo, rhi
	}
	centreE, centre := float64(ne)*p/100, float64(n)*p/100
	scale := float64(n) / float64(ne)
	return int64(math.Floor(centre - (centreE-float64(rlo))*scale)),
		int64(math.Ceil(centre + (float64(rhi)-centreE)*scale))
}

// ProportionCS is an anytime-valid interval for a proportion, k successes
// (here: unserved requests) in n trials: every rate π whose mixture
// martingale (prior centred on π, concentration for tunedFor trials) has
// not reached 1/(1−conf). With n = 0 it is [0, 1].
func ProportionCS(k, n int64, conf float64, tunedFor int64) (lo, hi float64) {
	if n <= 0 || k < 0 || k > n {
		return 0, 1
	}
	c := MixtureConcentration(tunedFor, conf)
	bound := math.Log(1 / (1 - conf))
	out := func(pi float64) bool { return mixtureLogLR(k, n, pi, c) >= bound }
	est := float64(k) / float64(n)
	lo, hi = 0, 1
	if k > 0 && out(1e-12) {
		lo = bisect(1e-12, est, out, true)
	}
	if k < n && out(1-1e-12) {
		hi = bisect(est, 1-1e-12, out, false)
	}
	return lo, hi
}

// bisect finds where out changes between a and b: out(a) is true when
// outLow, else out(b) is; the boundary is returned on the inside.
func bisect(a, b float64, out func(float64) bool, outLow bool) float64 {
	for range 60 {
		m := (a + b) / 2
		if out(m) == outLow {
			a = m
		} else {
			b = m
		}
	}
	if outLow {
		return b
	}
	return a
}

package stats

import "math"

// WilsonInterval is the Wilson score interval for a proportion: k
// successes (here: failed requests) in n trials, at confidence conf. It
// stays inside [0, 1] and keeps its coverage for the small k and large n of
// error rates, where the textbook normal interval collapses to a point at
// k = 0. With n = 0 it is the whole [0, 1].
func WilsonInterval(k, n int64, conf float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	z := math.Sqrt2 * math.Erfinv(conf) // two-sided: P(|Z| < z) = conf
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := z / (1 + z2/nf) * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	lo, hi = max(centre-half, 0), min(centre+half, 1)
	if k == 0 {
		lo = 0
	}
	if k == n {
		hi = 1
	}
	return lo, hi
}

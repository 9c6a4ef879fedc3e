package stats

import (
	"math"
	"slices"
)

// Trend is a monotonic trend of a series against time: the Theil–Sen slope
// (the median of the slopes between every pair of points) with Sen's
// distribution-free interval, from Kendall's S. It assumes nothing of the
// values' distribution, and one wild point moves it by one rank, not by its
// size: a healthy server's one slow second is no trend. The points must be
// near independent; callers pass block levels (a few seconds each), not
// the requests themselves, whose latencies a queue correlates.
type Trend struct {
	N     int     // points
	Slope float64 // per unit of x
	// Lo and Hi bound the slope at the confidence asked; Lo > 0 is an
	// increase at confidence 1 − (1 − conf)/2, one-sided.
	Lo, Hi float64
	S      int // Kendall's S: concordant less discordant pairs
}

// Rising reports whether the whole interval lies above zero.
func (t Trend) Rising() bool { return t.N > 0 && t.Lo > 0 }

// TheilSen fits the trend of y against x (x strictly increasing) with a
// two-sided interval at confidence conf. ok is false with fewer than 3
// points, or when the interval cannot be formed (too few pairs for conf).
func TheilSen(x, y []float64, conf float64) (t Trend, ok bool) {
	n := len(x)
	if n < 3 || len(y) != n {
		return Trend{}, false
	}
	slopes := make([]float64, 0, n*(n-1)/2)
	for i := range n {
		for j := i + 1; j < n; j++ {
			if x[j] == x[i] {
				continue
			}
			slopes = append(slopes, (y[j]-y[i])/(x[j]-x[i]))
			t.S += sign(y[j] - y[i])
		}
	}
	m := len(slopes)
	if m == 0 {
		return Trend{}, false
	}
	slices.Sort(slopes)
	t.N = n
	t.Slope = medianSorted(slopes)
	// Sen (1968): the interval's ends are order statistics of the slopes
	// placed C = z·√Var(S) apart around the median, Var(S) corrected for
	// ties among the y.
	z := math.Sqrt2 * math.Erfinv(conf)
	c := z * math.Sqrt(kendallVar(y))
	lo := int(math.Floor((float64(m) - c) / 2))
	hi := int(math.Ceil((float64(m) + c) / 2))
	if lo < 1 || hi > m-1 {
		// The interval reaches past the extreme slopes: unbounded.
		t.Lo, t.Hi = math.Inf(-1), math.Inf(1)
		return t, true
	}
	t.Lo, t.Hi = slopes[lo-1], slopes[hi]
	return t, true
}

// kendallVar is the variance of Kendall's S under no trend, with the
// correction for tied values.
func kendallVar(y []float64) float64 {
	n := float64(len(y))
	v := n * (n - 1) * (2*n + 5)
	counts := map[float64]int{}
	for _, x := range y {
		counts[x]++
	}
	for _, k := range counts {
		if k > 1 {
			t := float64(k)
			v -= t * (t - 1) * (2*t + 5)
		}
	}
	return v / 18
}

func sign(d float64) int {
	switch {
	case d > 0:
		return 1
	case d < 0:
		return -1
	}
	return 0
}

func medianSorted(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

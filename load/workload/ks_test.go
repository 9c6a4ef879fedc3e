package workload

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// ksStatistic is the two-sample Kolmogorov–Smirnov statistic: the largest
// gap between the two empirical distribution functions.
func ksStatistic(a, b []int) float64 {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	var i, j int
	var d float64
	for i < len(x) && j < len(y) {
		v := min(x[i], y[j])
		for i < len(x) && x[i] == v {
			i++
		}
		for j < len(y) && y[j] == v {
			j++
		}
		d = math.Max(d, math.Abs(float64(i)/float64(len(x))-float64(j)/float64(len(y))))
	}
	return d
}

// ksCritical is the large-sample critical value of the two-sample statistic
// at significance alpha: c(α)·√((n+m)/(n·m)), c(α) = √(−ln(α/2)/2). With
// discrete (tied) data the test is conservative.
func ksCritical(n, m int, alpha float64) float64 {
	c := math.Sqrt(-math.Log(alpha/2) / 2)
	return c * math.Sqrt(float64(n+m)/float64(n*m))
}

func TestKSHelper(t *testing.T) {
	a := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	assert.Equal(t, 0.0, ksStatistic(a, a))
	assert.Equal(t, 1.0, ksStatistic(a, []int{11, 12}))
	// After 5: F_a = 0.5, F_b = 1 → 0.5.
	assert.InDelta(t, 0.5, ksStatistic(a, []int{3, 4, 5}), 1e-12)
	assert.InDelta(t, 1.358, ksCritical(1e6, 1e6, 0.05)*math.Sqrt(1e6/2), 1e-3)
}

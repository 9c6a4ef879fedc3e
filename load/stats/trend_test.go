package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func seq(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i)
	}
	return x
}

func TestTheilSen(t *testing.T) {
	cases := []struct {
		name   string
		y      []float64
		slope  float64
		rising bool
	}{
		{"a straight rise", []float64{0, 2, 4, 6, 8, 10, 12, 14, 16, 18}, 2, true},
		{"flat", []float64{5, 5, 5, 5, 5, 5, 5, 5, 5, 5}, 0, false},
		// One wild block late in the window moves the slope by one rank.
		{"one spike at the end", []float64{10, 11, 9, 10, 12, 10, 9, 11, 10, 400}, 0, false},
		{"a fall", []float64{18, 16, 14, 12, 10, 8, 6, 4, 2, 0}, -2, false},
		// Up then down: a burst in the middle is no trend.
		{"a burst", []float64{1, 2, 4, 8, 16, 16, 8, 4, 2, 1}, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, ok := TheilSen(seq(len(tc.y)), tc.y, 0.98)
			require.True(t, ok)
			assert.InDelta(t, tc.slope, tr.Slope, 0.5)
			assert.Equal(t, tc.rising, tr.Rising(), "%+v", tr)
			assert.LessOrEqual(t, tr.Lo, tr.Slope)
			assert.GreaterOrEqual(t, tr.Hi, tr.Slope)
		})
	}
}

func TestTheilSenTooFewPoints(t *testing.T) {
	_, ok := TheilSen([]float64{0, 1}, []float64{0, 1}, 0.95)
	assert.False(t, ok)
	// Three points cannot bound a slope at 98%: the interval is unbounded,
	// so never rising.
	tr, ok := TheilSen(seq(3), []float64{0, 1, 2}, 0.98)
	require.True(t, ok)
	assert.True(t, math.IsInf(tr.Lo, -1))
	assert.False(t, tr.Rising())
}

// risingShare is the share of trials in which ten points drawn by point
// are found rising at 98%.
func risingShare(trials int, point func(i int) float64) float64 {
	rising := 0
	for range trials {
		y := make([]float64, 10)
		for i := range y {
			y[i] = point(i)
		}
		if tr, _ := TheilSen(seq(10), y, 0.98); tr.Rising() {
			rising++
		}
	}
	return float64(rising) / float64(trials)
}

// Under no trend, the interval's lower end clears zero at most as often as
// its one-sided level says: 1% at 98% two-sided.
func TestTheilSenFalseRiseRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	share := risingShare(4000, func(int) float64 { return rng.ExpFloat64() }) // skewed, as latencies are
	assert.Less(t, share, 0.015)
}

// A slow rise buried in noise twice its step (σ = 2 a point) is still
// found over ten points most of the time: the test has power, not only a
// low error (about 74%).
func TestTheilSenPower(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	share := risingShare(1000, func(i int) float64 { return float64(i) + 2*rng.NormFloat64() })
	assert.Greater(t, share, 0.65)
}

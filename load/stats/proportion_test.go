package stats

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWilsonIntervalKnownValues(t *testing.T) {
	// Hand-computed with z = 1.959964: p = 1/80, n = 80.
	lo, hi := WilsonInterval(1, 80, 0.95)
	assert.InDelta(t, 0.00221, lo, 5e-5)
	assert.InDelta(t, 0.06747, hi, 5e-5)
	// 108 of 157 (a server killed mid-step).
	lo, hi = WilsonInterval(108, 157, 0.95)
	assert.InDelta(t, 0.6116, lo, 5e-4)
	assert.InDelta(t, 0.7552, hi, 5e-4)
	lo, hi = WilsonInterval(0, 300, 0.95)
	assert.Zero(t, lo)
	assert.InDelta(t, 0.01264, hi, 5e-5, "the rule of three's neighbour: 3.84/(300+3.84)")
	lo, hi = WilsonInterval(0, 0, 0.95)
	assert.Equal(t, [2]float64{0, 1}, [2]float64{lo, hi})
}

// The interval covers the true rate about 95% of the time even for the
// small rates and counts of an error budget.
func TestWilsonIntervalCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		p float64
		n int64
	}{{0.01, 200}, {0.05, 80}, {0.3, 150}} {
		covered := 0
		const trials = 4000
		for range trials {
			var k int64
			for range c.n {
				if rng.Float64() < c.p {
					k++
				}
			}
			lo, hi := WilsonInterval(k, c.n, 0.95)
			if lo <= c.p && c.p <= hi {
				covered++
			}
		}
		assert.InDelta(t, 0.95, float64(covered)/trials, 0.03, "p=%g n=%d", c.p, c.n)
	}
}

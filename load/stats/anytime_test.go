package stats

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuantileCSRanksHoldTheFixedIntervalAndNarrow(t *testing.T) {
	for _, p := range []float64{50, 90, 99} {
		prevWidth := math.Inf(1)
		for _, n := range []int64{1600, 6400, 25600, 102400} {
			lo, hi, hasLo, hasHi := QuantileCSRanks(n, p, 0.95, 400)
			require.True(t, hasLo && hasHi, "p%v n=%d", p, n)
			flo, fhi, ok := QuantileCIRanks(n, p, 0.95)
			require.True(t, ok)
			// Valid at every look at once, so never narrower than the
			// interval valid at one.
			assert.LessOrEqual(t, lo, flo, "p%v n=%d", p, n)
			assert.GreaterOrEqual(t, hi, fhi, "p%v n=%d", p, n)
			centre := float64(n) * p / 100
			assert.Less(t, float64(lo), centre)
			assert.Greater(t, float64(hi), centre)
			width := float64(hi-lo) / float64(n)
			assert.Less(t, width, prevWidth, "p%v n=%d: a larger sample gives a narrower interval", p, n)
			prevWidth = width
		}
	}
}

func TestQuantileCSRanksOpenSidesOnSmallSamples(t *testing.T) {
	// Ten observations cannot bound a p99 from above: the tenth is not
	// high enough.
	_, _, hasLo, hasHi := QuantileCSRanks(10, 99, 0.95, 100)
	assert.False(t, hasHi)
	assert.True(t, hasLo)
	_, _, _, _ = QuantileCSRanks(0, 99, 0.95, 100)
	_, _, a, b := QuantileCSRanks(100, 0, 0.95, 100)
	assert.False(t, a || b, "p out of range")
}

func TestProportionCSHoldsWilson(t *testing.T) {
	for _, c := range []struct{ k, n int64 }{{0, 50}, {1, 80}, {5, 100}, {30, 1000}, {50, 50}} {
		lo, hi := ProportionCS(c.k, c.n, 0.95, 200)
		wlo, whi := WilsonInterval(c.k, c.n, 0.95)
		assert.LessOrEqual(t, lo, wlo+1e-9, "%d of %d", c.k, c.n)
		assert.GreaterOrEqual(t, hi, whi-1e-9, "%d of %d", c.k, c.n)
		est := float64(c.k) / float64(c.n)
		assert.LessOrEqual(t, lo, est)
		assert.GreaterOrEqual(t, hi, est)
	}
	lo, hi := ProportionCS(0, 0, 0.95, 10)
	assert.Equal(t, [2]float64{0, 1}, [2]float64{lo, hi})
}

// optionalStopping runs trials of a step that observes rate values a
// second, drawn from an exponential distribution whose p90 is ratio times
// the limit, and looks at every second up to secs. It returns the share
// of trials in which the anytime interval, and the fixed-sample interval
// peeked at the same looks, ever lay wholly on the wrong side of the
// limit.
func optionalStopping(trials, secs, rate int, ratio float64, seed uint64) (anytime, peeked float64) {
	const limit = 100 * time.Millisecond
	// Exponential with p90 = ratio·limit: mean = p90/ln(10).
	mean := ratio * float64(limit) / math.Log(10)
	wrongA, wrongF := 0, 0
	for tr := range trials {
		rng := rand.New(rand.NewPCG(seed, uint64(tr)))
		h := NewHistogram()
		a, f := false, false
		for range secs {
			for range rate {
				h.Record(time.Duration(rng.ExpFloat64() * mean))
			}
			lo, hi, hasLo, hasHi := h.QuantileCS(90, 0.95, 1, 100)
			flo, fhi, ok := h.QuantileCIAt(90, 0.95)
			// At ratio 1 the percentile sits on the limit and either
			// conclusive verdict is wrong.
			if ratio <= 1 { // the truth passes: a conclusive fail is wrong
				a = a || (hasLo && lo > limit)
				f = f || (ok && flo > limit)
			}
			if ratio >= 1 {
				a = a || (hasHi && hi <= limit)
				f = f || (ok && fhi <= limit)
			}
		}
		if a {
			wrongA++
		}
		if f {
			wrongF++
		}
	}
	return float64(wrongA) / float64(trials), float64(wrongF) / float64(trials)
}

// The guarantee the sequential gate rests on, measured: with the true p90
// 3% on either side of the limit, and on it, 400 trials of 60 looks (20
// observations a second) each. The anytime interval's wrong verdicts stay
// within 5% plus three standard errors of the trials' own sampling (3.3%);
// the fixed-sample interval peeked at the same looks does worse, and on
// the limit far worse than its 5%, which is why the anytime one exists.
func TestOptionalStoppingKeepsTheStatedLevel(t *testing.T) {
	trials := 400
	if testing.Short() {
		trials = 150 // the race pass: the same checks, with a wider margin
	}
	margin := 3 * math.Sqrt(0.05*0.95/float64(trials))
	for _, ratio := range []float64{0.97, 1, 1.03} {
		anytime, peeked := optionalStopping(trials, 60, 20, ratio, 7)
		t.Logf("true p90 at %.2f× the limit: wrong conclusive verdicts %.1f%% anytime, %.1f%% peeking the fixed interval",
			ratio, 100*anytime, 100*peeked)
		assert.LessOrEqual(t, anytime, 0.05+margin, "ratio %.2f", ratio)
		assert.Greater(t, peeked, anytime, "ratio %.2f: peeking at the fixed interval should do worse", ratio)
		if ratio == 1 {
			assert.Greater(t, peeked, 0.05+margin, "peeking at the fixed interval breaks its level")
		}
	}
}

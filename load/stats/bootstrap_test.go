package stats

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// burstyRun is a 40-second run whose every second has its own slowdown,
// shared by all of that second's observations (as a stalled step or a
// queue slows every stream at once), with scale × the latencies.
func burstyRun(rng *rand.Rand, scale float64) (*Clusters, *Histogram) {
	c, h := NewClusters(), NewHistogram()
	for sec := range 40 {
		slow := math.Exp(0.5 * rng.NormFloat64())
		for range 300 {
			d := time.Duration(scale * slow * (1 + rng.ExpFloat64()) * float64(10*time.Millisecond))
			c.Record(sec, d)
			h.Record(d)
		}
	}
	return c, h
}

func TestRatioIntervalPaired(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	base, _ := burstyRun(rng, 1)
	lo, hi, ok := RatioInterval(base, base, 95, 0.95, true)
	require.True(t, ok)
	assert.Equal(t, [2]float64{1, 1}, [2]float64{lo, hi}, "a run against itself, paired")

	// The same run on a server 20% slower: every observation × 1.2.
	slower := NewClusters()
	for sec, s := range base.secs {
		for i, k := range s.counts {
			for range k {
				slower.Record(sec, time.Duration(1.2*math.Exp((float64(s.first+i)+0.5)*clusterLogRatio)*float64(time.Microsecond)))
			}
		}
	}
	lo, hi, ok = RatioInterval(slower, base, 95, 0.95, true)
	require.True(t, ok)
	assert.InDelta(t, 1.2, lo, 0.03)
	assert.InDelta(t, 1.2, hi, 0.03)
}

// Unchanged server, two independent runs of a bursty process: the block
// bootstrap's interval holds the false alarms (lower end above 1.10) near
// its nominal 2.5%, where two order-statistic intervals that take every
// observation as independent raise them far more often.
func TestRatioIntervalUnpairedFalseAlarms(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const trials = 60
	boot, orderStat, judged := 0, 0, 0
	for range trials {
		a, ha := burstyRun(rng, 1)
		b, hb := burstyRun(rng, 1)
		lo, _, ok := RatioInterval(a, b, 95, 0.95, false)
		require.True(t, ok)
		judged++
		if lo > 1.10 {
			boot++
		}
		alo, _, _ := ha.QuantileCIAt(95, 0.95)
		_, bhi, _ := hb.QuantileCIAt(95, 0.95)
		if float64(alo)/float64(bhi) > 1.10 {
			orderStat++
		}
	}
	t.Logf("false alarms in %d: block bootstrap %d, independent order statistics %d", judged, boot, orderStat)
	assert.LessOrEqual(t, boot, 3, "block bootstrap")
	assert.Greater(t, orderStat, 2*boot+3, "the order-statistic intervals are too narrow for bursty data")
}

func TestRatioIntervalTooShort(t *testing.T) {
	c := NewClusters()
	for sec := range 9 {
		c.Record(sec, time.Millisecond)
	}
	_, _, ok := RatioInterval(c, c, 50, 0.95, true)
	assert.False(t, ok, "nine seconds make fewer than ten blocks even of one second")
	_, _, ok = RatioInterval(NewClusters(), c, 50, 0.95, true)
	assert.False(t, ok)
}

// A ratio is read within the clusters' 2% buckets, not in their steps: a
// server slower by 1 to 10% reads as slower by that much, to a few
// tenths of a percent, not as the nearest power of 1.02 (a 5% slowdown
// read mid-bucket is ×1.040 or ×1.061, and a 5% tolerance acts as 6.1%).
func TestRatioReadsBetweenBuckets(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	durations := make([][]time.Duration, 30)
	for sec := range durations {
		for range 40 {
			durations[sec] = append(durations[sec], time.Duration((0.2+rng.ExpFloat64())*float64(100*time.Millisecond)))
		}
	}
	runOf := func(scale float64) *Clusters {
		c := NewClusters()
		for sec, ds := range durations {
			for _, d := range ds {
				c.Record(sec, time.Duration(scale*float64(d)))
			}
		}
		return c
	}
	base := runOf(1)
	for pct := 1; pct <= 10; pct++ {
		want := 1 + float64(pct)/100
		point, lo, hi, ok := RatioEstimate(runOf(want), base, 90, 0.95, true)
		require.True(t, ok)
		assert.InDelta(t, want, point, 0.004, "a server %d%% slower", pct)
		assert.LessOrEqual(t, lo, point)
		assert.GreaterOrEqual(t, hi, point)
	}
}

package verdict

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// The four baseline looks fall where the cohort first reaches each of four
// horizons, evenly from the floor to the cap: with a 10 s floor and a 30 s
// cap, at 10, 16.7, 23.3 and 30 s of finished requests.
func TestBaselineLooksAreSpacedByTheCohortsHorizon(t *testing.T) {
	cases := []struct {
		prev, horizon float64
		want          bool
	}{
		{0, 9.9, false},
		{9.9, 10, true},
		{10, 12, false},
		{12, 16.6, false},
		{16.6, 16.7, true},
		{16.7, 23, false},
		{23, 24, true},
		{24, 29.9, false},
		{29.9, 30, true},
		{0, 17, true}, // a look that passes two horizons at once compares once
	}
	for _, c := range cases {
		assert.Equal(t, c.want, IsBaselineLook(c.prev, c.horizon, 10, 30), "%v → %v", c.prev, c.horizon)
	}
	n := 0
	for h := 0.0; h <= 30; h += 0.5 {
		if IsBaselineLook(h-0.5, h, 10, 30) {
			n++
		}
	}
	assert.Equal(t, BaselineLooks, n, "four looks from the floor to the cap")
	assert.True(t, IsBaselineLook(0, 5, 40, 5), "a floor past the cap is the cap")
}

// A comparison that decided (each check within its tolerance, or one a
// regression) is kept for the looks between baseline looks; one that could
// still go either way, or that has no interval, is not.
func TestSettledKeepsOnlyAComparisonThatDecided(t *testing.T) {
	within := report.BaselineCheck{Metric: "ttft", Percentile: 90, Tolerance: 0.1, RatioCI95: &[2]float64{0.95, 1.08}}
	open := report.BaselineCheck{Metric: "itl", Percentile: 99, Tolerance: 0.1, RatioCI95: &[2]float64{0.95, 1.2}}
	none := report.BaselineCheck{Metric: "itl", Percentile: 99, Tolerance: 0.1}
	regressed := report.BaselineCheck{Metric: "itl", Percentile: 99, Tolerance: 0.1, RatioCI95: &[2]float64{1.15, 1.4}, Regressed: true}
	assert.Equal(t, []report.BaselineCheck{within}, Settled([]report.BaselineCheck{within}))
	assert.Nil(t, Settled([]report.BaselineCheck{within, open}))
	assert.Nil(t, Settled([]report.BaselineCheck{within, none}))
	assert.Equal(t, []report.BaselineCheck{open, regressed}, Settled([]report.BaselineCheck{open, regressed}))
}

// A look, or a step cut where it was decided, is compared with its
// baseline over the whole seconds both windows measured: a second past
// either window's end holds only some of its requests' gaps (the drain,
// or requests still in flight), however many observations it has. With
// too few whole seconds for the bootstrap there is no interval, rather
// than one from two windows of different lengths.
func TestSameSecondsComparesOnlyTheWholeSecondsBothMeasured(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vals := make([][]time.Duration, 40)
	for sec := range vals {
		for range 30 {
			vals[sec] = append(vals[sec], time.Duration((1+rng.ExpFloat64())*float64(20*time.Millisecond)))
		}
	}
	step := func(durS float64, secs int, tail time.Duration) *report.StepReport {
		h, c := stats.NewHistogram(), stats.NewClusters()
		for sec := range secs {
			for _, v := range vals[sec] {
				h.Record(v)
				c.Record(sec, v)
			}
		}
		// The second after the window: a few of its requests' gaps only.
		for range 20 {
			h.Record(tail)
			c.Record(secs, tail)
		}
		return &report.StepReport{Name: "rate=6", DurationS: durS,
			Histograms: map[report.Metric]*stats.Histogram{report.MetricITL: h},
			Clusters:   map[report.Metric]*stats.Clusters{report.MetricITL: c},
			SLO: []report.SLOResult{{Metric: "itl", Percentile: 99, Samples: h.Count(),
				ObservedMs: float64(h.Quantile(99)) / 1e6}}}
	}
	base := &report.Report{Seed: 1, Steps: []report.StepReport{*step(30.4, 30, 20*time.Millisecond)}}
	look := step(12.6, 12, 2*time.Second) // 12 whole seconds, then a partial one of long gaps
	cs, err := compareBaseline(base, look, true, 0.10, BaselineConfidence, true)
	require.NoError(t, err)
	require.NotNil(t, cs[0].RatioCI95)
	assert.Equal(t, [2]float64{1, 1}, *cs[0].RatioCI95, "the same requests in the same seconds")
	assert.InDelta(t, 1, cs[0].Ratio, 1e-9)

	short := step(6.5, 6, 2*time.Second) // six whole seconds: too few blocks
	cs, err = compareBaseline(base, short, true, 0.10, BaselineConfidence, true)
	require.NoError(t, err)
	assert.Nil(t, cs[0].RatioCI95, "no interval from windows of different lengths")
}

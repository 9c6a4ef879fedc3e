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
		horizon float64
		want    int
	}{{9.9, 0}, {10, 1}, {16.6, 1}, {16.7, 2}, {23, 2}, {24, 3}, {29.9, 3}, {30, 4}}
	for _, c := range cases {
		assert.Equal(t, c.want, BaselineLooksReached(c.horizon, 10, 30), "%v s", c.horizon)
	}
	assert.Equal(t, BaselineLooks, BaselineLooksReached(5, 40, 5), "a floor past the cap is the cap")
}

// The looks spend the comparison's 5% as O'Brien-Fleming-shaped bounds
// do: little at the first horizons, most at the last, all of it by the
// cap, whichever horizons the looks reached; a step whose looks reached
// none compares at the cap as a fixed interval does.
func TestBaselineLooksSpendTheErrorRateMostlyAtTheEnd(t *testing.T) {
	alpha := 1 - CIConfidence
	spent := []float64{0}
	for k := 1; k <= BaselineLooks; k++ {
		spent = append(spent, BaselineSpent(k, 10, 30))
		assert.Greater(t, spent[k], spent[k-1], "look %d spends", k)
	}
	assert.InDelta(t, 0.00069, spent[1], 0.00002, "a third of the way: 99.93%")
	assert.InDelta(t, 0.0263, spent[3], 0.0002)
	assert.InDelta(t, 0.9763, 1-(alpha-spent[3]), 0.0002, "what is left for the cap: 97.6%")
	assert.Equal(t, alpha, spent[BaselineLooks])
	assert.Zero(t, BaselineSpent(0, 10, 30))
	// Levels per look (each increment) err together at most alpha.
	var err float64
	for k := 1; k <= BaselineLooks; k++ {
		err += spent[k] - spent[k-1]
	}
	assert.InDelta(t, alpha, err, 1e-12)

	// A step's looks: a comparison only at a look that reaches a new
	// horizon, one for two horizons passed at once, and the rest at the cap.
	var b BaselineSpending
	var levels []float64
	for _, h := range []float64{5, 10, 12, 17, 25} {
		levels = append(levels, b.Look(h, 10, 30))
	}
	assert.InDeltaSlice(t, []float64{0, 1 - spent[1], 0, 1 - (spent[2] - spent[1]), 1 - (spent[3] - spent[2])}, levels, 1e-12)
	assert.InDelta(t, 1-(alpha-spent[3]), b.Rest(), 1e-12)
	var jump BaselineSpending
	assert.InDelta(t, 1-spent[2], jump.Look(17, 10, 30), 1e-12)
	assert.InDelta(t, CIConfidence, (&BaselineSpending{}).Rest(), 1e-12, "no look reached a horizon: a fixed interval at the cap")
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
	cs, err := compareBaseline(base, look, true, 0.10, 0.9875, true)
	require.NoError(t, err)
	require.NotNil(t, cs[0].RatioCI95)
	assert.Equal(t, [2]float64{1, 1}, *cs[0].RatioCI95, "the same requests in the same seconds")
	assert.InDelta(t, 1, cs[0].Ratio, 1e-9)

	short := step(6.5, 6, 2*time.Second) // six whole seconds: too few blocks
	cs, err = compareBaseline(base, short, true, 0.10, 0.9875, true)
	require.NoError(t, err)
	assert.Nil(t, cs[0].RatioCI95, "no interval from windows of different lengths")
}

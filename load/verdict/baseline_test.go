package verdict

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

func TestCompareBaseline(t *testing.T) {
	base := &report.Report{Steps: []report.StepReport{{Name: "rate=4", SLO: []report.SLOResult{
		{Metric: "ttft", Percentile: 95, ObservedMs: 100, Samples: 300},
		{Metric: "error_rate", Samples: 300},
	}}}}
	step := func(obs float64, ci *[2]float64) *report.StepReport {
		return &report.StepReport{Name: "rate=4", SLO: []report.SLOResult{
			{Metric: "ttft", Percentile: 95, ObservedMs: obs, CI95Ms: ci, Samples: 300},
			{Metric: "error_rate", Samples: 300},
		}}
	}
	cases := []struct {
		name      string
		st        *report.StepReport
		regressed bool
	}{
		{"faster", step(90, &[2]float64{80, 95}), false},
		{"slower within the tolerance", step(108, &[2]float64{100, 115}), false},
		{"slower, but the interval reaches back under the bound", step(130, &[2]float64{105, 150}), false},
		{"slower, the whole interval over the bound", step(130, &[2]float64{115, 150}), true},
		{"no interval: the observed value decides", step(111, nil), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := CompareBaseline(base, tc.st, false, 0.10)
			require.NoError(t, err)
			require.Len(t, cs, 1, "error_rate has no baseline check")
			assert.Equal(t, tc.regressed, cs[0].Regressed)
			assert.Equal(t, 100.0, cs[0].BaselineMs)
		})
	}

	_, err := CompareBaseline(base, &report.StepReport{Name: "rate=8"}, false, 0.1)
	assert.ErrorContains(t, err, "no step rate=8")
	_, err = CompareBaseline(base, &report.StepReport{Name: "rate=4", SLO: []report.SLOResult{{Metric: "itl", Percentile: 99, ObservedMs: 1, Samples: 9}}}, false, 0.1)
	assert.ErrorContains(t, err, "no itl.p99")
}

// With both runs' histograms the comparison carries both runs' noise: a
// 20% slower server regresses at a 10% tolerance, the same server rerun
// does not, and neither does a difference that sampling alone explains.
func TestCompareBaselineUsesBothRunsIntervals(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	step := func(scale float64, n int) *report.StepReport {
		h := stats.NewHistogram()
		for range n {
			h.Record(time.Duration(scale * float64(50*time.Millisecond) * rng.ExpFloat64()))
		}
		s := &report.StepReport{Name: "rate=8", Histograms: map[report.Metric]*stats.Histogram{report.MetricTTFT: h}}
		s.SLO = judgeSLOs(s, []SLO{{Metric: report.MetricTTFT, Percentile: 95, Limit: time.Hour}}, false, nil)
		return s
	}
	base := &report.Report{Seed: 3, Steps: []report.StepReport{*step(1, 2000)}}
	check := func(st *report.StepReport) report.BaselineCheck {
		cs, err := CompareBaseline(base, st, true, 0.10)
		require.NoError(t, err)
		require.Len(t, cs, 1)
		require.NotNil(t, cs[0].RatioCI95)
		assert.LessOrEqual(t, cs[0].RatioCI95[0], cs[0].Ratio)
		assert.GreaterOrEqual(t, cs[0].RatioCI95[1], cs[0].Ratio)
		assert.True(t, cs[0].Paired)
		return cs[0]
	}
	assert.False(t, check(step(1, 2000)).Regressed, "the same server")
	slow := check(step(1.5, 2000))
	assert.True(t, slow.Regressed, "%+v", slow)
	small := check(step(1.15, 200)) // 15% slower on 200 samples: within the noise
	assert.False(t, small.Regressed, "%+v", small)
}

// With both runs' clusters the comparison is a block bootstrap, paired when
// the seeds match. Every second of these runs has its own slowdown, shared
// by its observations, as on a server whose queue comes and goes.
func TestCompareBaselineBlockBootstrap(t *testing.T) {
	type run struct {
		h *stats.Histogram
		c *stats.Clusters
	}
	bursty := func(seed uint64, scale float64) run {
		rng := rand.New(rand.NewPCG(seed, 1))
		r := run{stats.NewHistogram(), stats.NewClusters()}
		for sec := range 40 {
			slow := math.Exp(0.5 * rng.NormFloat64())
			for range 50 {
				d := time.Duration(scale * slow * (1 + rng.ExpFloat64()) * float64(10*time.Millisecond))
				r.h.Record(d)
				r.c.Record(sec, d)
			}
		}
		return r
	}
	stepOf := func(r run) *report.StepReport {
		return &report.StepReport{Name: "rate=6",
			Histograms: map[report.Metric]*stats.Histogram{report.MetricTTFT: r.h},
			Clusters:   map[report.Metric]*stats.Clusters{report.MetricTTFT: r.c},
			SLO: []report.SLOResult{{Metric: "ttft", Percentile: 95, Samples: r.h.Count(),
				ObservedMs: float64(r.h.Quantile(95)) / 1e6}}}
	}
	base := &report.Report{Seed: 1, Steps: []report.StepReport{*stepOf(bursty(1, 1))}}

	// The same requests on the same schedule, on a server 30% slower: the
	// same seconds slow down (the seed), every latency × 1.3.
	cs, err := CompareBaseline(base, stepOf(bursty(1, 1.3)), true, 0.10)
	require.NoError(t, err)
	require.NotNil(t, cs[0].RatioCI95)
	assert.True(t, cs[0].Paired)
	assert.InDelta(t, 1.3, cs[0].RatioCI95[0], 0.05, "paired: the shared slowdowns cancel")
	assert.True(t, cs[0].Regressed)

	// Another seed on the unchanged server: other seconds are slow, and the
	// interval is wide enough to say so.
	cs, err = CompareBaseline(base, stepOf(bursty(2, 1)), false, 0.10)
	require.NoError(t, err)
	assert.False(t, cs[0].Paired)
	assert.Less(t, cs[0].RatioCI95[0], 1.0)
	assert.Greater(t, cs[0].RatioCI95[1], 1.0)
	assert.False(t, cs[0].Regressed)
}

// The ratio and its interval come from one estimator, so the ratio lies in
// it. Every latency of each run is one value (100 ms, then 133 ms): every
// resample gives the same ratio, so the bootstrap's interval is one
// cluster bucket wide, and the histograms' ratio (1.33) falls in another
// bucket's (×1.32), where a ratio read from the histograms and an interval
// from the clusters printed "×1.33 [1.32, 1.32]".
func TestBaselineRatioLiesInItsInterval(t *testing.T) {
	constant := func(d time.Duration) *report.StepReport {
		h, c := stats.NewHistogram(), stats.NewClusters()
		for sec := range 40 {
			for range 20 {
				h.Record(d)
				c.Record(sec, d)
			}
		}
		return &report.StepReport{Name: "rate=6",
			Histograms: map[report.Metric]*stats.Histogram{report.MetricTTFT: h},
			Clusters:   map[report.Metric]*stats.Clusters{report.MetricTTFT: c},
			SLO: []report.SLOResult{{Metric: "ttft", Percentile: 90, Samples: h.Count(),
				ObservedMs: float64(h.Quantile(90)) / 1e6}}}
	}
	base := &report.Report{Steps: []report.StepReport{*constant(100 * time.Millisecond)}}
	for _, paired := range []bool{true, false} {
		cs, err := CompareBaseline(base, constant(133*time.Millisecond), paired, 0.10)
		require.NoError(t, err)
		require.Len(t, cs, 1)
		c := cs[0]
		require.NotNil(t, c.RatioCI95, "forty seconds make ten blocks")
		assert.InDelta(t, 1.33, c.ObservedMs/c.BaselineMs, 0.002, "the histograms' ratio")
		assert.LessOrEqual(t, c.RatioCI95[0], c.Ratio, "paired=%v: %+v", paired, c)
		assert.GreaterOrEqual(t, c.RatioCI95[1], c.Ratio, "paired=%v: %+v", paired, c)
		assert.InDelta(t, 1.33, c.Ratio, 0.03, "within a cluster bucket of the histograms' ratio")
	}
}

package verdict

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
	"github.com/llmslo/llmslo/load/vllmapi"
)

// trendStep is a 45 s step of 20 requests a block whose TTFT is a block's
// server-added level plus 0.05 ms for each prompt token, prompts of the
// given mean per block (each block's prompts spread ±50% around it).
type trendStep struct {
	levels  []float64 // ms, per block
	prompts []float64 // mean prompt tokens, per block
	queue   []float64 // the server's mean queue time per block, ms; nil: no metrics
	waiting float64   // waiting at the end of the window
	growth  float64   // requests the server held more at the end than at the start
	queued  float64   // share of the window's samples with a request waiting
	p50     float64   // the step's TTFT p50, ms
}

func (ts trendStep) build() (*report.StepReport, stepEvidence) {
	s := &report.StepReport{Name: "rate=6", DurationS: 45}
	s.TTFT.P50 = ts.p50
	blocks := make([]report.TTFTBlock, len(ts.levels))
	for i, lvl := range ts.levels {
		for k := range 20 {
			p := ts.prompts[i] * (0.5 + float64(k)/19)
			blocks[i].Add(int64(p), time.Duration((lvl+0.05*p)*float64(time.Millisecond)))
		}
	}
	if ts.queue != nil {
		s.Server = vllmapi.ServerStats{MetricsAvailable: true, WaitingAtEnd: ts.waiting, InSystemGrowth: ts.growth, QueuedShare: ts.queued}
		for i, q := range ts.queue {
			s.Server.QueueTimeBlocks = append(s.Server.QueueTimeBlocks, vllmapi.QueueBlock{AtS: 4.5*float64(i) + 2.25, Requests: 20, MeanMs: q})
		}
	}
	ev := stepEvidence{passing: true}
	ev.TTFTBlocks, ev.Due, ev.SentInWindow = blocks, 200, 200
	return s, ev
}

// withTTFT gives s n TTFT observations spread ±10% around d.
func withTTFT(s *report.StepReport, n int, d time.Duration) {
	h := stats.NewHistogram()
	for i := range n {
		h.Record(d + time.Duration(float64(d)*0.2*(float64(i)/float64(n-1)-0.5)))
	}
	s.Histograms = map[report.Metric]*stats.Histogram{report.MetricTTFT: h}
	s.TTFT = h.Summary()
	s.Requests = report.RequestCounts{Scheduled: n, Sent: n, Completed: n}
}

func flat(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func ramp(n int, from, step float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = from + step*float64(i)
	}
	return out
}

// A trace whose long prompts fall in the second half doubles the halves'
// TTFT medians by itself. With the prompts' own effect taken out, the
// server added the same delay in every block: no hazard and no overload,
// with or without the server's queue time, and whatever waits at the end.
func TestLongerPromptsInOneHalfAreNoTrend(t *testing.T) {
	prompts := append(flat(5, 500), flat(5, 3000)...)
	for _, queue := range [][]float64{nil, {3, 1, 0, 2, 4, 0, 1, 5, 2, 3}} {
		ts := trendStep{levels: flat(10, 60), prompts: prompts, queue: queue, waiting: 3, growth: 3, p50: 100}
		s, ev := ts.build()
		first, last := ev.TTFTBlocks[0], ev.TTFTBlocks[9]
		require.Greater(t, float64(last.SY)/float64(first.SY), 1.5, "the raw TTFT doubles between the halves")

		assert.Nil(t, overCapacity(s, ev, DefaultThresholds()), "queue %v", queue)
		assert.False(t, notSteady(s, ev, DefaultThresholds()).seen, "queue %v", queue)
	}
}

// Just past the knee the queue's growth is slow beside its noise, but the
// server's queue time rises block after block: with requests waiting at the
// end and more held than at the start, that is over capacity, and the step
// fails whatever the prompts did.
func TestASustainedQueueTimeRiseIsOverCapacity(t *testing.T) {
	ts := trendStep{levels: ramp(10, 100, 150), prompts: flat(10, 128), queue: ramp(10, 20, 150),
		waiting: 7, growth: 9, queued: 0.5, p50: 800}
	s, ev := ts.build()
	withTTFT(s, 200, 800*time.Millisecond)
	parsed, err := ParseSLOs([]string{"ttft.p50<=20s"})
	require.NoError(t, err)
	Judge(s, ev.Evidence, Criteria{SLOs: parsed}).Apply(s)
	assert.Equal(t, report.VerdictFail, s.Verdict)
	require.NotNil(t, s.OverCapacity)
	assert.Contains(t, s.OverCapacity.Message, "the server's queue time rose by 1500.0 ms across the window")
	assert.Contains(t, s.OverCapacity.Message, "the server held 9 requests more at the end of the window than at its start (7 waiting at the end)")
	assert.InDelta(t, 0.2, s.OverCapacity.GrowthPerS, 1e-9, "9 requests in 45 s")

	// The same rise with nothing waiting at the end is no overload: the
	// step passed its SLO before a steady state, which is not_steady.
	s.Server.WaitingAtEnd = 0
	Judge(s, ev.Evidence, Criteria{SLOs: parsed}).Apply(s)
	assert.Nil(t, s.OverCapacity)
	assert.Equal(t, report.VerdictInvalid, s.Verdict)
	h := hazardOf(s, HazardNotSteady, false)
	require.NotNil(t, h)
	assert.Contains(t, h.Message, "the step met its SLOs before reaching a steady state")
}

// A server that holds fewer requests at the end of the window than at its
// start is draining: never over capacity, whatever rose on the way, and
// however saturated it was.
func TestAShrinkingServerIsNeverOverCapacity(t *testing.T) {
	for _, growth := range []float64{-5, 0, 1} {
		ts := trendStep{levels: ramp(10, 100, 150), prompts: flat(10, 128), queue: ramp(10, 20, 150),
			waiting: 7, growth: growth, queued: 1, p50: 800}
		s, ev := ts.build()
		assert.Nil(t, overCapacity(s, ev, DefaultThresholds()), "growth %v", growth)
	}
}

// A server with a request waiting through the window admitted as fast as
// it could; holding 5% of the window's arrivals more at its end than at
// its start, it is over capacity, trend or no trend (a queue's level near
// the knee is a random walk, the count of arrivals is not). Less growth,
// or a server that was not saturated, is no evidence.
func TestASaturatedServerThatGainedRequestsIsOverCapacity(t *testing.T) {
	noTrend := []float64{400, 380, 420, 390, 410, 400, 395, 405, 385, 415}
	s, ev := trendStep{levels: noTrend, prompts: flat(10, 128), queue: noTrend, waiting: 12, growth: 10, queued: 0.95, p50: 900}.build()
	o := overCapacity(s, ev, DefaultThresholds())
	require.NotNil(t, o)
	assert.Contains(t, o.Message, "requests waited in 95% of the window's samples")
	assert.Contains(t, o.Message, "the server held 10 requests more at the end of the window than at its start (12 waiting at the end), of 200 arrivals")

	s.Server.InSystemGrowth = 9 // under 5% of 200
	assert.Nil(t, overCapacity(s, ev, DefaultThresholds()))
	s.Server.InSystemGrowth, s.Server.QueuedShare = 10, 0.6
	assert.Nil(t, overCapacity(s, ev, DefaultThresholds()))
}

// A burst in the middle of the window, or one slow block at its end, is
// no trend: a fast server's jitter of a few ms neither.
func TestBurstsAndJitterAreNoTrend(t *testing.T) {
	for name, levels := range map[string][]float64{
		"burst":      {50, 60, 200, 400, 300, 80, 60, 50, 55, 60},
		"last block": {50, 52, 49, 51, 50, 48, 52, 50, 51, 400},
		"jitter":     ramp(10, 1, 0.1), // rises, but by 1 ms in all
	} {
		s, ev := trendStep{levels: levels, prompts: flat(10, 100), p50: 60}.build()
		if name == "jitter" {
			s.TTFT.P50 = 1.5
		}
		assert.False(t, notSteady(s, ev, DefaultThresholds()).seen, name)
	}
}

// A step that regressed against its paired baseline stays a regression
// (exit 1), though its TTFT rose through the window: the baseline, on the
// same seed, rose alike, and a rise could only make a longer run worse.
func TestARegressionWithATrendItsBaselineSharesStaysARegression(t *testing.T) {
	parsed, err := ParseSLOs([]string{"ttft.p95<=5s"})
	require.NoError(t, err)
	base, bev := trendStep{levels: ramp(10, 100, 12), prompts: flat(10, 500), p50: 150}.build()
	baseRep := &report.Report{Seed: 41, Steps: []report.StepReport{*base}}
	baseRep.Steps[0].Evidence = &report.StepEvidence{TTFTBlocks: bev.TTFTBlocks}
	withTTFT(&baseRep.Steps[0], 100, 150*time.Millisecond)
	Judge(&baseRep.Steps[0], bev.Evidence, Criteria{SLOs: parsed}).Apply(&baseRep.Steps[0])

	cur, cev := trendStep{levels: ramp(10, 170, 20), prompts: flat(10, 500), p50: 260}.build()
	withTTFT(cur, 100, 260*time.Millisecond)
	c := Criteria{SLOs: parsed, Baseline: baseRep, BaselineTolerance: 0.1, BaselinePaired: true}
	Judge(cur, cev.Evidence, c).Apply(cur)
	require.NotEmpty(t, Regressions(cur.Baseline), "%+v", cur.Baseline)
	assert.Equal(t, report.VerdictFail, cur.Verdict)
	assert.Empty(t, cur.Hazards)
	n := hazardOf(cur, HazardNotSteady, true)
	require.NotNil(t, n, "the trend is kept as a note")
	assert.NotContains(t, n.Message, "passed")

	// The same trend in a step that passes, beside a paired baseline
	// that rose alike, is the trace's shape: a note, and the step passes.
	cur2, cev2 := trendStep{levels: ramp(10, 100, 12), prompts: flat(10, 500), p50: 150}.build()
	withTTFT(cur2, 100, 150*time.Millisecond)
	Judge(cur2, cev2.Evidence, c).Apply(cur2)
	assert.Equal(t, report.VerdictPass, cur2.Verdict, "%+v", cur2.Hazards)
	n = hazardOf(cur2, HazardNotSteady, true)
	require.NotNil(t, n)
	assert.Contains(t, n.Message, "the trace's, not the server's")

	// Without the baseline the same step cannot rest its pass on a rise.
	Judge(cur2, cev2.Evidence, Criteria{SLOs: parsed}).Apply(cur2)
	assert.Equal(t, report.VerdictInvalid, cur2.Verdict)
}

// A trend's counts say what they count: the requests, then the blocks
// they fell in, never "blocks of N requests" with N the total.
func TestTrendDescriptionCountsRequestsInBlocks(t *testing.T) {
	tr := trend{source: "TTFT", fit: stats.Trend{Slope: 2, Lo: 1, Hi: 3}, riseMs: 80, blocks: 10, requests: 207}
	got := tr.describe()
	assert.Contains(t, got, "207 requests in 10 blocks")
	assert.NotContains(t, got, "blocks of")
}

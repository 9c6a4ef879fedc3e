package render

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/report"
)

// A side-by-side run shows both sides, one row each per step, and each
// step's ratios against the base with their intervals, in the terminal,
// the CI summary and the HTML page.
func TestSideBySideShowsBothSidesAndTheRatios(t *testing.T) {
	own := report.StepReport{Name: "rate=6", RateTarget: 6, RateAchieved: 6, Verdict: report.VerdictFail, Errors: map[string]int{},
		Timeline: []report.Second{{T: 0, Sent: 6, Completed: 6, TTFTMeanMs: 300, TTFTMaxMs: 400}, {T: 1, Sent: 6, Completed: 6, TTFTMeanMs: 330, TTFTMaxMs: 420}},
		Requests: report.RequestCounts{Sent: 180, Completed: 180},
		Versus: []report.BaselineCheck{{Metric: "ttft", Percentile: 90, ObservedMs: 330, BaselineMs: 240, Ratio: 1.375,
			RatioCI95: &[2]float64{1.21, 1.52}, Regressed: true, Paired: true, Tolerance: 0.1}}}
	base := own
	base.Verdict, base.Versus = report.VerdictPass, nil
	base.Requests.Completed = 179
	r := &report.Report{Verdict: report.VerdictFail, Steps: []report.StepReport{own},
		Versus: &report.Versus{Mode: report.VersusTogether, Target: report.TargetInfo{Kind: "url", URL: "http://base:8000"},
			Tolerance: 0.1, Steps: []report.StepReport{base}, Verdict: report.VerdictPass}}

	var b bytes.Buffer
	WriteSummary(&b, r)
	out := b.String()
	assert.Contains(t, out, "side by side (together) with the base url http://base:8000")
	assert.Contains(t, out, "rate=6: against the base: ttft.p90 ×1.38 [1.21, 1.52] REGRESSED")
	assert.Regexp(t, `(?m)^\s+base\s+6\.00\s+6\.00\s+180\s+179\s`, out, "the base side's row")

	md := Markdown("gate", r)
	assert.Contains(t, md, "| rate=6, base | 6.00 | 180 |")
	assert.Contains(t, md, "**rate=6** against the base: ttft.p90 ×1.38 [1.21, 1.52] REGRESSED.")

	b.Reset()
	require.NoError(t, WriteHTML(&b, r))
	assert.Contains(t, b.String(), "Against the base side")
	assert.Contains(t, b.String(), `<td class="name">base server</td>`, "the base's row in the Steps table")
	assert.Contains(t, b.String(), "side by side with</dt><dd>url http://base:8000 (together")
	assert.Contains(t, b.String(), "the base server&#39;s mean TTFT", "both sides on one timeline")
	assert.Contains(t, b.String(), "×1.38 [1.21, 1.52]")
}

// An alternating run says how it shared the load: blocks, their order and
// the transient left out, in the terminal, the CI summary and the HTML.
func TestAlternatingRunSaysHowItSharedTheLoad(t *testing.T) {
	own := report.StepReport{Name: "rate=6", RateTarget: 6, RateAchieved: 6, DurationS: 30, Verdict: report.VerdictPass, Errors: map[string]int{},
		Evidence: &report.StepEvidence{Due: 180, SentInWindow: 180},
		Blocks:   []report.StepBlock{{Block: 0, Turn: 0, WindowS: 8}, {Block: 1, Turn: 3, WindowS: 8}, {Block: 2, Turn: 4, WindowS: 7}, {Block: 3, Turn: 7, WindowS: 7}},
		Versus: []report.BaselineCheck{{Metric: "ttft", Percentile: 90, ObservedMs: 250, BaselineMs: 240, Ratio: 1.04,
			RatioCI95: &[2]float64{0.98, 1.09}, Paired: true, Tolerance: 0.05}}}
	r := &report.Report{Verdict: report.VerdictPass, Steps: []report.StepReport{own},
		Versus: &report.Versus{Mode: report.VersusAlternate, Target: report.TargetInfo{Kind: "sim"}, BlocksS: []float64{8, 8, 7, 7}, TransientS: 5,
			Tolerance: 0.05, Steps: []report.StepReport{own}, Verdict: report.VerdictPass}}
	const how = "the same requests in 4 blocks a side of 8, 8, 7 and 7s, in ABBA order, each after 5s left out of both"
	var b bytes.Buffer
	WriteSummary(&b, r)
	assert.Contains(t, b.String(), "side by side (alternate) with the base sim: "+how)
	assert.Contains(t, Markdown("gate", r), "Side by side (alternate) with the base sim: "+how)
	b.Reset()
	require.NoError(t, WriteHTML(&b, r))
	assert.Contains(t, b.String(), "(alternate: "+how)
	assert.Contains(t, b.String(), "Against the base side (side by side: "+how)
	assert.NotContains(t, b.String(), "at the same moments")
	assert.Contains(t, b.String(), "sent 180 of the 180 requests due in the 30 s window (alternating, 4 blocks a side of 8, 8, 7 and 7s, each after its own warm-up)")
}

package render

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llmslo/llmslo/load/report"
)

// sloRowText is the terminal's and the page's result for one SLO.
func sloRowText(t *testing.T, r report.SLOResult) (term, page string) {
	t.Helper()
	var b bytes.Buffer
	WriteStep(&b, &report.StepReport{Name: "rate=8", SLO: []report.SLOResult{r}})
	return b.String(), sloRows([]report.SLOResult{r})[0].Result
}

// Samples made in bursts (a design effect) can leave 41181 samples worth
// fewer independent ones than an interval needs: the note says so, and
// never that 41181 is fewer than 368.
func TestSLONoteNamesTheDesignEffect(t *testing.T) {
	r := report.SLOResult{Metric: "itl", Percentile: 99, LimitMs: 50, ObservedMs: 61.2, Samples: 41181,
		NeededSamples: 368, DesignEffect: 150}
	term, page := sloRowText(t, r)
	for _, out := range []string{term, page} {
		assert.Contains(t, out, "FAIL (no interval: the 41181 samples came in bursts that move together (design effect 150), worth about 274 independent ones; a 95% interval at p99 needs 368)")
		assert.NotContains(t, out, "inconclusive")
	}
}

// An interval that lies wholly on one side of the limit decided the
// verdict, whatever the conclusive flag says: no note beside it.
func TestSLONoteNeverCallsADecidingIntervalInconclusive(t *testing.T) {
	for _, r := range []report.SLOResult{
		{Metric: "ttft", Percentile: 99, LimitMs: 500, ObservedMs: 620, CI95Ms: &[2]float64{580, 660}, Samples: 41181, NeededSamples: 368},
		{Metric: "ttft", Percentile: 99, LimitMs: 500, ObservedMs: 420, CI95Ms: &[2]float64{400, 460}, Samples: 41181, NeededSamples: 368, Pass: true},
		{Metric: "error_rate", MaxRate: 0.01, Observed: 0.2, CI95: &[2]float64{0.15, 0.25}, Samples: 400},
	} {
		term, page := sloRowText(t, r)
		assert.NotContains(t, term, "inconclusive")
		assert.NotContains(t, page, "inconclusive")
		assert.NotContains(t, term, "(")
	}
	straddles := report.SLOResult{Metric: "ttft", Percentile: 99, LimitMs: 500, ObservedMs: 520, CI95Ms: &[2]float64{480, 560}, Samples: 900, NeededSamples: 368}
	term, page := sloRowText(t, straddles)
	assert.Contains(t, term, "FAIL (inconclusive: the 95% interval straddles the limit")
	assert.Contains(t, page, "FAIL (inconclusive: the 95% interval straddles the limit")
	few := report.SLOResult{Metric: "ttft", Percentile: 99, LimitMs: 500, ObservedMs: 520, Samples: 200, NeededSamples: 368}
	term, _ = sloRowText(t, few)
	assert.Contains(t, term, "FAIL (no interval: 200 samples; a 95% interval at p99 needs 368 or more)")
}

package report_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/reporttest"
	"github.com/llmslo/llmslo/load/report"
)

// The JSON report says what a sweep found beside its worst step's verdict.
func TestWriteJSONRecordsTheSearchOutcome(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rep      report.Report
		outcome  string
		sentence string
	}{
		{"knee", report.Report{Verdict: report.VerdictFail, Capacity: &report.Capacity{PassRate: 10, FailRate: 12}}, report.OutcomeKneeFound,
			"knee found: 10 req/s meets every SLO; 12 req/s does not"},
		{"below", report.Report{Verdict: report.VerdictFail, Capacity: &report.Capacity{FailRate: 4}}, report.OutcomeBelowLowestRate,
			"below the lowest rate: fails at every rate tried, the lowest was 4 req/s"},
		{"sessions", report.Report{Verdict: report.VerdictFail, Capacity: &report.Capacity{PassRate: 0.5, FailRate: 1},
			Steps: []report.StepReport{reporttest.SessionStep()}}, report.OutcomeKneeFound, "knee found: 0.5 sessions/s meets every SLO; 1 sessions/s does not"},
		{"every rate passed", report.Report{Verdict: report.VerdictPass, Capacity: &report.Capacity{PassRate: 16}}, "", ""},
		{"fixed rates", report.Report{Verdict: report.VerdictFail}, "", ""},
		{"invalid", report.Report{Verdict: report.VerdictInvalid, Capacity: &report.Capacity{PassRate: 8}}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.json")
			require.NoError(t, tc.rep.WriteJSON(path))
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			var back map[string]any
			require.NoError(t, json.Unmarshal(b, &back))
			if tc.outcome == "" {
				assert.NotContains(t, back, "outcome")
			} else {
				assert.Equal(t, tc.outcome, back["outcome"])
			}
			assert.Equal(t, string(tc.rep.Verdict), back["verdict"], "the verdict stays the worst step's")
			assert.Equal(t, tc.sentence, tc.rep.OutcomeText())
			assert.Empty(t, tc.rep.Outcome, "writing leaves the report as it was")
		})
	}
}

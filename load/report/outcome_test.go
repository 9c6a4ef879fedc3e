package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The JSON report says what a sweep found beside its worst step's verdict.
func TestWriteJSONRecordsTheSearchOutcome(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rep      Report
		outcome  string
		sentence string
	}{
		{"knee", Report{Verdict: VerdictFail, Capacity: &Capacity{PassRate: 10, FailRate: 12}}, OutcomeKneeFound,
			"knee found: 10 req/s meets every SLO; 12 req/s does not"},
		{"below", Report{Verdict: VerdictFail, Capacity: &Capacity{FailRate: 4}}, OutcomeBelowLowestRate,
			"below the lowest rate: fails at every rate tried, the lowest was 4 req/s"},
		{"sessions", Report{Verdict: VerdictFail, Capacity: &Capacity{PassRate: 0.5, FailRate: 1},
			Steps: []StepReport{sessionStep()}}, OutcomeKneeFound, "knee found: 0.5 sessions/s meets every SLO; 1 sessions/s does not"},
		{"every rate passed", Report{Verdict: VerdictPass, Capacity: &Capacity{PassRate: 16}}, "", ""},
		{"fixed rates", Report{Verdict: VerdictFail}, "", ""},
		{"invalid", Report{Verdict: VerdictInvalid, Capacity: &Capacity{PassRate: 8}}, "", ""},
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

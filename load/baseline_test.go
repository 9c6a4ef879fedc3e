package load

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
)

// A missing baseline, and one without the step a run gates, are errors a
// face recognises (BaselineMissing) to say how its users record one.
func TestAMissingBaselineIsRecognised(t *testing.T) {
	_, err := ReadBaseline(filepath.Join(t.TempDir(), "missing.json"))
	require.Error(t, err)
	assert.ErrorContains(t, err, "no baseline at")
	assert.True(t, BaselineMissing(err))
	_, err = verdict.CompareBaseline(&report.Report{}, &report.StepReport{Name: "rate=4"}, true, 0.1)
	assert.True(t, BaselineMissing(err))
	assert.False(t, BaselineMissing(errors.New("connection refused")))
}

func TestRecordBaselineRefusesRunsThatCannotBeTrusted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.json")
	assert.ErrorContains(t, RecordBaseline(&report.Report{Partial: true, Reason: "interrupt"}, path), "cut short")
	assert.ErrorContains(t, RecordBaseline(&report.Report{Verdict: report.VerdictInvalid}, path), "cannot be trusted")
	require.NoError(t, RecordBaseline(&report.Report{Verdict: report.VerdictFail}, path))
	back, err := ReadBaseline(path)
	require.NoError(t, err)
	assert.Equal(t, report.VerdictFail, back.Verdict)
}

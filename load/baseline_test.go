package load

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/report"
)

func TestLoadBaselineNamesHowToRecordOne(t *testing.T) {
	_, err := LoadBaseline(filepath.Join(t.TempDir(), "missing.json"), "go test -slotest.update")
	assert.ErrorContains(t, err, "record one with go test -slotest.update")
	_, err = LoadBaseline(filepath.Join(t.TempDir(), "missing.json"), "llmslo run --update-baseline")
	assert.ErrorContains(t, err, "--update-baseline")
}

func TestRecordBaselineRefusesRunsThatCannotBeTrusted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.json")
	assert.ErrorContains(t, RecordBaseline(&report.Report{Partial: true, Reason: "interrupt"}, path), "cut short")
	assert.ErrorContains(t, RecordBaseline(&report.Report{Verdict: report.VerdictInvalid}, path), "cannot be trusted")
	require.NoError(t, RecordBaseline(&report.Report{Verdict: report.VerdictFail}, path))
	back, err := LoadBaseline(path, "")
	require.NoError(t, err)
	assert.Equal(t, report.VerdictFail, back.Verdict)
}

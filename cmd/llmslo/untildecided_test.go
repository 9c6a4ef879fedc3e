package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/testkit"
	"github.com/llmslo/llmslo/load/report"
)

// The PR gate at docs/gatepower.md's settings, run until decided against a
// healthy server: it stops before its cap, passes, and says when and why
// on the terminal and in the report.
func TestHealthyPRGateStopsBeforeItsCap(t *testing.T) {
	testkit.Long(t) // a step of up to 30 s after a 5 s warm-up
	path := filepath.Join(t.TempDir(), "gate.json")
	code, stdout, stderr := runArgs(t, "run", "--fixture", "azure-conv-2023", "--rates", "6", "--duration", "30s", "--warmup", "5s",
		"--sim-args", "--profile h200-llama3-8b", "--slo", "ttft.p90<=5s", "--slo", "itl.p99<=2s", "--until-decided",
		"--quiet", "--report", path)
	assert.Equal(t, exitPass, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stdout, "rate=6: decided at")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var rep report.Report
	require.NoError(t, json.Unmarshal(b, &rep))
	st := rep.Steps[0]
	require.NotNil(t, st.UntilDecided)
	t.Logf("%s", st.UntilDecided.Why)
	assert.True(t, st.UntilDecided.Decided)
	assert.Less(t, st.DurationS, 30.0, "stopped before the cap")
	assert.Equal(t, report.VerdictPass, st.Verdict)
}

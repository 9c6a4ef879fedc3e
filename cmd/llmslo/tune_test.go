package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/vllmsim"
)

// Against a URL, tune cannot change the server's flags: it says so, and
// does Fit, the knee and Protect only.
func TestTuneAgainstAURLCannotChangeFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	cfg, err := vllmsim.ParseServeArgs([]string{"--profile", "h100-llama3-8b", "--max-num-seqs", "2"})
	require.NoError(t, err)
	srv := simtest.Start(t, cfg)
	dir := t.TempDir()
	path, page := filepath.Join(dir, "tune.json"), filepath.Join(dir, "tune.html")
	code, stdout, stderr := runArgs(t, "tune", "--target", srv.URL, "--rates", "4,60", "--refine", "0", "--fixture", "fixed:32:8",
		"--duration", "1s", "--warmup", "0s", "--arrival", "constant", "--slo", "ttft.p50<=1s", "--no-overload",
		"--hazard-off", "too_few_samples,client_saturation", "--quiet", "--report", path, "--html", page)
	assert.Equal(t, exitPass, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stdout, "cannot change its flags")
	assert.Contains(t, stdout, "fit: the KV cache")
	assert.Contains(t, stdout, "final flags: add or change on the server: --max-num-queued-reqs", "a server llmslo did not start gets no vllm serve line")
	assert.Contains(t, stdout, "the server's other flags could not be seen")
	assert.Contains(t, stdout, "protect: at the knee (4 req/s)")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var rep report.Report
	require.NoError(t, json.Unmarshal(b, &rep))
	require.NotNil(t, rep.Tune)
	assert.Len(t, rep.Tune.Iterations, 1)
	assert.NotEmpty(t, rep.Tune.CannotChange)
	require.NotNil(t, rep.Fit)
	require.NotNil(t, rep.Protect)
	assert.Positive(t, rep.Protect.MaxNumQueuedReqs)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "<h2>Tuning</h2>")
}

func TestTuneUsageErrorsExitThree(t *testing.T) {
	for _, args := range [][]string{{"tune", "--rates", "2", "--budget", "0"}, {"tune", "--rates", "2", "--fit-margin", "-1"}, {"tune"}} {
		code, _, stderr := runArgs(t, args...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, stderr)
	}
}

// run --overload judges each rate by the overload gate: a server of one
// sequence that admits two requests at once, asked for 30 a second of
// half-second requests, sheds most of them fast and serves the rest.
func TestRunOverloadJudgesTheGate(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	code, stdout, stderr := runArgs(t, "run", "--overload", "--rates", "30", "--fixture", "fixed:32:64", "--duration", "2s", "--warmup", "0s",
		"--arrival", "constant", "--slo", "ttft.p50<=2s", "--hazard-off", "too_few_samples,client_saturation", "--quiet",
		"--sim-args", "--profile h100-llama3-8b --max-num-seqs 1 --max-num-queued-reqs 2")
	assert.Equal(t, exitPass, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stdout, "overload gate passed: shed")
	assert.Contains(t, stdout, "worst queue wait")
	assert.NotContains(t, stdout, "FAIL: error_rate", "the gate judges the admitted requests' errors instead")
}

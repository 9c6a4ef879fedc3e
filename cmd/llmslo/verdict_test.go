package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/load/render"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/vllmsim"
)

// A server that dies in the middle of the step, with only a latency SLO
// on the command line: the error guard still applies and the run exits 1,
// naming the error rate.
func TestRunFailsWhenTheServerDiesMidStep(t *testing.T) {
	srv := simtest.Start(t, vllmsim.Config{ProfileName: "instant",
		Faults: vllmsim.Faults{PacedTTFT: 10 * time.Millisecond, PacedITL: time.Millisecond}})
	time.AfterFunc(time.Second, srv.Close)
	code, stdout, stderr := runArgs(t, "run", "--target", srv.URL, "--rates", "20", "--duration", "2s", "--warmup", "0s",
		"--arrival", "constant", "--fixture", "fixed:8:4", "--slo", "ttft.p50<=1s", "--quiet")
	assert.Equal(t, exitFail, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stdout, "FAIL")
	assert.Contains(t, stdout+stderr, "error_rate")
}

// The command follows its own flags only: SLOTEST_UPDATE=1 in its
// environment neither records nor skips the comparison, so a recorded
// baseline still catches a server four times slower.
func TestBaselineIgnoresTheGoTestEnvironment(t *testing.T) {
	if raceEnabled {
		t.Skip("records a baseline only from a client that kept its schedule: run without -race")
	}
	path := filepath.Join(t.TempDir(), "gate.json")
	args := func(ttft string, extra ...string) []string {
		return append([]string{"run", "--rates", "20", "--duration", "2s", "--warmup", "0s", "--arrival", "constant",
			"--fixture", "fixed:8:4", "--slo", "ttft.p50<=10s", "--quiet",
			"--sim-args", "--profile instant --fault-paced-ttft " + ttft + " --fault-paced-itl 1ms"}, extra...)
	}
	// 40 requests against an in-process server: one hiccup of a busy
	// machine is their send-lag p99, and the step is rightly invalid. The
	// claims here are about the baseline, so such a run is tried again.
	run := func(a []string) (code int, stdout, stderr string) {
		for attempt := 1; attempt <= 3; attempt++ {
			code, stdout, stderr = runArgs(t, a...)
			if code != exitInvalid || !strings.Contains(stdout+stderr, "client_saturation") {
				break
			}
			t.Logf("attempt %d: the client fell behind; again", attempt)
		}
		return code, stdout, stderr
	}
	code, _, stderr := run(args("20ms", "--baseline", path, "--update-baseline"))
	assert.Equal(t, exitPass, code, stderr)
	assert.Contains(t, stderr, "baseline recorded in "+path)

	t.Setenv("SLOTEST_UPDATE", "1")
	code, stdout, stderr := run(args("80ms", "--baseline", path))
	assert.Equal(t, exitFail, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stdout, "REGRESSED")
	assert.NotContains(t, stderr, "baseline recorded")

	code, _, stderr = runArgs(t, args("20ms", "--baseline", filepath.Join(t.TempDir(), "none.json"))...)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--update-baseline", "the error names the command's own flag")
	assert.NotContains(t, stderr, "slotest")
}

// --hazard-off takes a hazard out of the verdict and says so wherever the
// verdict is read: 40 requests cannot vouch for a p99 (too_few_samples)
// until that hazard is turned off, and the pass then names what it skipped.
func TestHazardOffIsJudgedWithoutItAndSaysSo(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	srv := simtest.Start(t, vllmsim.Config{ProfileName: "instant", Faults: vllmsim.Faults{PacedITL: time.Millisecond}})
	path := filepath.Join(t.TempDir(), "report.json")
	args := func(extra ...string) []string {
		return append([]string{"run", "--target", srv.URL, "--rates", "20", "--duration", "2s", "--warmup", "0s",
			"--arrival", "constant", "--fixture", "fixed:8:4", "--slo", "ttft.p99<=10s", "--quiet", "--report", path}, extra...)
	}
	code, stdout, stderr := runArgs(t, args()...)
	assert.Equal(t, exitInvalid, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stdout, "too_few_samples")

	// A busy machine may starve the in-process client: that hazard is off
	// here too, so that the claim is about the one under test.
	code, stdout, stderr = runArgs(t, args("--hazard-off", "too_few_samples", "--hazard-off", "client_saturation,too_few_samples")...)
	assert.Equal(t, exitPass, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stdout, "note: hazards not judged, turned off by the run: too_few_samples, client_saturation")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var rep report.Report
	require.NoError(t, json.Unmarshal(raw, &rep))
	require.Len(t, rep.Steps, 1)
	assert.Equal(t, []string{"too_few_samples", "client_saturation"}, rep.Steps[0].HazardsOff)
	assert.Contains(t, render.Markdown("gate", &rep), "Hazards not judged, turned off by the run: too_few_samples, client_saturation")

	code, _, stderr = runArgs(t, "run", "--rates", "1", "--hazard-off", "cold_cache")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `--hazard-off "cold_cache": no such hazard (known: client_saturation, warm_cache`)
	code, _, stderr = runArgs(t, "run", "--rates", "1", "--starved-retries", "-1")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--starved-retries -1")
}

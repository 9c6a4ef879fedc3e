package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A baseline of another fixture, or without the run's step, is a usage
// error (exit 3) found before the load, not a regression or a run stopped
// early (exit 1, which CI reads as an SLO failure).
func TestBaselineOfAnotherWorkloadExitsThreeBeforeTheLoad(t *testing.T) {
	if raceEnabled {
		t.Skip("records a baseline only from a client that kept its schedule: run without -race")
	}
	path := filepath.Join(t.TempDir(), "base.json")
	args := func(fixture, rates string, extra ...string) []string {
		return append([]string{"run", "--rates", rates, "--duration", "1s", "--warmup", "0s", "--arrival", "constant",
			"--fixture", fixture, "--slo", "ttft.p50<=10s", "--quiet", "--hazard-off", "too_few_samples,client_saturation",
			"--sim-args", "--profile instant --fault-paced-ttft 10ms --fault-paced-itl 1ms", "--baseline", path}, extra...)
	}
	code, _, stderr := runArgs(t, args("fixed:8:4", "20", "--update-baseline")...)
	if !assert.Equal(t, exitPass, code, stderr) {
		return
	}

	code, stdout, stderr := runArgs(t, args("fixed:8:5", "20")...)
	assert.Equal(t, exitUsage, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stderr, "the baseline was recorded with fixture fixed:8:4")
	assert.Contains(t, stderr, "this run uses fixed:8:5")
	assert.NotContains(t, stdout, "REGRESSED")

	code, stdout, stderr = runArgs(t, args("fixed:8:4", "9")...)
	assert.Equal(t, exitUsage, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stderr, "steps rate=20, this run uses rate=9")
	assert.NotContains(t, stderr, "run stopped early")
}

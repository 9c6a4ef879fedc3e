package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/llmslo/llmslo/vllmsim"
)

// A server that dies in the middle of the step, with only a latency SLO
// on the command line: the error guard still applies and the run exits 1,
// naming the error rate.
func TestRunFailsWhenTheServerDiesMidStep(t *testing.T) {
	srv := vllmsim.NewServer(vllmsim.Config{ProfileName: "instant",
		Faults: vllmsim.Faults{PacedTTFT: 10 * time.Millisecond, PacedITL: time.Millisecond}})
	defer srv.Close()
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

package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/vllmsim"
)

// --cancel-rate and --cancel-after abandon about that fraction of requests,
// counted apart from failures; --requests-out writes a line per request,
// and the abandoned lines are the report's count.
func TestRunCancelRateAndRequestsOut(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	srv := simtest.Start(t, vllmsim.Config{ProfileName: "instant",
		Faults: vllmsim.Faults{PacedTTFT: 20 * time.Millisecond, PacedITL: 10 * time.Millisecond}})
	dir := t.TempDir()
	reqs, rep := filepath.Join(dir, "requests.jsonl"), filepath.Join(dir, "report.json")
	code, stdout, stderr := runArgs(t, "run", "--target", srv.URL, "--rates", "20", "--duration", "2s", "--warmup", "0s",
		"--arrival", "constant", "--fixture", "fixed:8:20", "--slo", "ttft.p50<=1s", "--quiet",
		"--cancel-rate", "0.5", "--cancel-after", "100ms", "--requests-out", reqs, "--report", rep)
	if code == exitInvalid { // a loaded test machine may be late to send
		assert.Contains(t, stdout, "client_saturation")
	} else {
		assert.Equal(t, exitPass, code, "%s\n%s", stdout, stderr)
	}
	assert.Contains(t, stderr, "per-request records written to "+reqs)
	assert.Contains(t, stdout, "requests abandoned mid-stream as planned")

	b, err := os.ReadFile(rep)
	require.NoError(t, err)
	var r report.Report
	require.NoError(t, json.Unmarshal(b, &r))
	s := r.Steps[0]

	f, err := os.Open(reqs)
	require.NoError(t, err)
	defer f.Close()
	lines, abandoned := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec observe.RequestRecord
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		lines++
		switch rec.Outcome {
		case "abandoned":
			abandoned++
		default:
			assert.Equal(t, observe.OutcomeOK, rec.Outcome)
		}
	}
	assert.Equal(t, 40, lines, "one line per request")
	assert.Equal(t, abandoned, s.Requests.Abandoned)
	assert.InDelta(t, 20, abandoned, 10, "about half of 40") // 3.2 sd of Binomial(40, 0.5)
	assert.Equal(t, 40-abandoned, s.Requests.Completed)
	assert.Zero(t, s.ErrorRate())
}

func TestRunCancelFlagsNeedEachOther(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--cancel-rate", "0.1"}, "--cancel-rate needs --cancel-after"},
		{[]string{"--cancel-after", "2s"}, "--cancel-after needs --cancel-rate"},
		{[]string{"--cancel-rate", "1.5", "--cancel-after", "2s"}, "want a fraction in [0, 1]"},
		{[]string{"--cancel-rate", "0.1", "--cancel-after", "-2s"}, "--cancel-rate needs --cancel-after"},
	} {
		code, _, stderr := runArgs(t, append([]string{"run", "--rates", "4"}, c.args...)...)
		assert.Equal(t, exitUsage, code, "%v", c.args)
		assert.Contains(t, stderr, c.want, "%v", c.args)
	}
}

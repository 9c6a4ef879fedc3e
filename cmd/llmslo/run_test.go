package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmslo/llmslo/load/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunUsageErrorsExitThree(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "--rates is required"},
		{[]string{"run", "--rates", "two"}, `"two" is not a rate`},
		{[]string{"run", "--rates", "2", "--slo", "tfft.p95<=1s"}, "--slo"},
		{[]string{"run", "--rates", "2", "--arrival", "weibull"}, "--arrival"},
		{[]string{"run", "--rates", "2", "--api", "grpc"}, "--api"},
		{[]string{"run", "--arrival", "trace:2", "--rates", "2"}, "give no --rates"},
		{[]string{"run", "--rates", "2", "--sim-args", "--max-num-seqs banana"}, "--sim-args"},
		{[]string{"run", "--rates", "2", "--fixture", "no/such/file.csv", "--quiet"}, "no/such/file.csv"},
		{[]string{"run", "--rates", "2", "--target", "http://127.0.0.1:1", "--quiet"}, "does not answer"},
		{[]string{"run", "--rates", "2", "extra"}, "unexpected argument"},
		{[]string{"nonsense"}, "unknown command"},
		{[]string{"run", "--rates", "2", "--update-baseline"}, "needs --baseline"},
		{[]string{"run", "--rates", "2", "--baseline", "no/such/baseline.json", "--quiet"}, "no baseline at no/such/baseline.json"},
	}
	for _, tc := range cases {
		code, _, stderr := runArgs(t, tc.args...)
		assert.Equal(t, exitUsage, code, "%v: %s", tc.args, stderr)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
	}
}

func TestRunOnTheSimulatorWritesAReport(t *testing.T) {
	dir := t.TempDir()
	path, page := filepath.Join(dir, "out", "report.json"), filepath.Join(dir, "out", "report.html")
	code, stdout, stderr := runArgs(t, "run", "--rates", "40", "--fixture", "fixed:32:4", "--duration", "1s", "--warmup", "0s",
		"--arrival", "constant", "--slo", "ttft.p50<=1us", "--quiet", "--report", path, "--html", page, "--sim-args", "--profile instant")
	// The SLO cannot be met: exit 1, or 2 if the shared test machine made
	// the client late (a hazard outranks a violation).
	assert.Contains(t, []int{exitFail, exitInvalid}, code, stderr)
	assert.Contains(t, stdout, "rate=40")
	assert.Contains(t, stderr, "report written to "+path)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var rep report.Report
	require.NoError(t, json.Unmarshal(b, &rep))
	require.Len(t, rep.Steps, 1)
	s := rep.Steps[0]
	assert.Equal(t, 40, s.Requests.Scheduled)
	assert.Equal(t, 40, s.Requests.Completed)
	assert.Equal(t, int64(40*4), s.Tokens.Output)
	assert.False(t, s.SLO[0].Pass)
	assert.Equal(t, "sim", rep.Target.Kind)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "rate=40")
	assert.Contains(t, string(html), "<svg")
}

func TestHelpExitsZero(t *testing.T) {
	for _, cmd := range []string{"run", "sweep"} {
		code, _, stderr := runArgs(t, cmd, "-h")
		assert.Equal(t, exitPass, code, cmd)
		assert.Contains(t, stderr, "-rates", cmd)
	}
}

func TestFinishMapsVerdictsToExitCodes(t *testing.T) {
	cases := []struct {
		rep  report.Report
		err  error
		want int
	}{
		{report.Report{Verdict: report.VerdictPass}, nil, exitPass},
		{report.Report{Verdict: report.VerdictFail}, nil, exitFail},
		{report.Report{Verdict: report.VerdictInvalid}, nil, exitInvalid},
		{report.Report{Verdict: report.VerdictPass, Partial: true}, errors.New("interrupted"), exitInvalid},
	}
	for _, tc := range cases {
		var out, errb bytes.Buffer
		assert.Equal(t, tc.want, finish(&tc.rep, tc.err, runFlags{}, &out, &errb), "%+v", tc.rep)
		assert.Contains(t, out.String(), "verdict: "+string(tc.rep.Verdict))
	}
}

// Off a terminal (here a file, as CI's log is) progress is sparse: the
// note that a 1 s step lacks samples and Fit's line before the first step, then steps shorter than 10 s write no
// progress line, only their summary rows, and nothing is redrawn in place.
func TestRunOffATerminalWritesOneLinePerStep(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	defer f.Close()
	var out bytes.Buffer
	code := dispatch(context.Background(), []string{"run", "--rates", "20,40", "--fixture", "fixed:32:4", "--duration", "1s",
		"--warmup", "500ms", "--arrival", "constant", "--slo", "ttft.p95<=10s", "--sim-args", "--profile instant"}, &out, f)
	stderr, err := os.ReadFile(f.Name())
	require.NoError(t, err)
	assert.Contains(t, []int{exitPass, exitInvalid}, code, string(stderr))
	assert.NotContains(t, string(stderr), "\r", "no redraws off a terminal")
	assert.NotContains(t, string(stderr), "warm-up", "no progress line in a step under 10 s")
	lines := strings.Split(strings.TrimSpace(string(stderr)), "\n")
	require.Len(t, lines, 4, string(stderr))
	assert.Regexp(t, `^note: the step at 20 req/s gives about 20 samples of ttft.p95 in 1s, of the 200 it needs`, lines[0])
	lines = lines[1:]
	assert.Regexp(t, `^fit: the KV cache \(480000 tokens\) holds 13333 requests of the p95 size \(36 tokens`, lines[0])
	lines = lines[1:]
	assert.Regexp(t, `^step 1 of 2  rate=20  (PASS|INVALID)  \d+\.\d\d req/s  ttft p95 \d+\.\d ms  itl p99 \d+\.\d ms$`, lines[0])
	assert.Regexp(t, `^step 2 of 2  rate=40  (PASS|INVALID)  `, lines[1])
}

// A sweep that found its knee says so once, on the verdict line, and adds
// only what binds there; one stopped by an invalid step keeps its capacity
// line, which says why nothing was found.
func TestSweepSaysItsKneeOnce(t *testing.T) {
	rep := &report.Report{Verdict: report.VerdictFail, Capacity: &report.Capacity{PassRate: 10, FailRate: 12,
		Binding: &report.Binding{Kind: "max_num_seqs", Evidence: "running at the cap", Flag: "--max-num-seqs"}}}
	var out bytes.Buffer
	writeCapacity(&out, rep)
	assert.Equal(t, "binding at 12 req/s: max_num_seqs: running at the cap\n  change: --max-num-seqs\n", out.String())

	rep = &report.Report{Verdict: report.VerdictInvalid, Capacity: &report.Capacity{PassRate: 4},
		Steps: []report.StepReport{{Verdict: report.VerdictPass}, {Verdict: report.VerdictInvalid}}}
	out.Reset()
	writeCapacity(&out, rep)
	assert.Equal(t, "capacity: unknown: an invalid step stopped the sweep (last pass 4 req/s)\n", out.String())
}

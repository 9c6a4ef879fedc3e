package slotest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
)

// A passing overload step logs the gate's own verdict (what was shed, how
// fast, what the admitted requests met) and not the error guard the gate
// replaces, which counts every 503 as a failure.
func TestAPassingOverloadStepLogsTheGateNotTheErrorGuard(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	// Four sequences of 128+64 tokens carry about 7 req/s; at 12 the
	// admission limit sheds the excess with fast 503s.
	st := measure(t, WithSim(vllmsim.Config{ProfileName: "h100-llama3-8b", MaxNumSeqs: 4, MaxNumQueuedReqs: 5}),
		WithFixture("fixed:128:64"), WithRates(12), WithArrival("constant"), WithDuration(3*time.Second), WithWarmup(time.Second),
		WithSLO("ttft.p95<=1500ms"), WithOverload(0),
		WithThresholds(func(th *verdict.Thresholds) {
			th.Off = append(th.Off, verdict.HazardClientSaturation, verdict.HazardTooFewSamples)
		}))
	require.NotNil(t, st.OverloadGate)
	require.Equal(t, report.VerdictPass, st.Verdict, "%+v", st.OverloadGate.Checks)
	require.Positive(t, st.Requests.Shed)
	var rec recordingTB
	CheckStep(&rec, st)
	assert.Empty(t, rec.errors)
	require.Len(t, rec.logs, 1)
	log := rec.logs[0]
	t.Log(log)
	assert.Contains(t, log, fmt.Sprintf("overload gate passed: %d of %d shed, shed p99 ", st.OverloadGate.Shed.Count, st.OverloadGate.Shed.Of))
	assert.Contains(t, log, "≤ 250 ms; admitted: ttft.p95 ")
	assert.Contains(t, log, "no timeouts")
	assert.NotContains(t, log, "FAIL", "the error guard the gate replaces must not read as a failure")
	assert.NotContains(t, log, "error_rate")
}

// EnvLineChild runs TestFailuresPointAtTheUsersLineChild as the child of
// TestFailuresPointAtTheUsersLine.
const envLineChild = "SLOTEST_LINE_CHILD"

// A failing step, and a failing assertion, name the user's line in the
// test's output, not slotest's: every function between the user's call
// and the failure is a test helper.
func TestFailuresPointAtTheUsersLine(t *testing.T) {
	if os.Getenv(envLineChild) != "" {
		t.Skip("the child runs alone")
	}
	want := markedLines(t, "gate_test.go", "// user's line:")
	require.Len(t, want, 2)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestFailuresPointAtTheUsersLineChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), envLineChild+"=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the child's gate fails:\n%s", out)
	for _, line := range want {
		assert.Contains(t, string(out), fmt.Sprintf("gate_test.go:%d:", line))
	}
	// testing prints a failure's file:line first on its line; testify's
	// Error Trace lists the whole stack, with paths.
	assert.NotRegexp(t, `(?m)^\s+(slotest|assert|overload|shard|requests)\.go:\d+: `, string(out))
}

func TestFailuresPointAtTheUsersLineChild(t *testing.T) {
	if os.Getenv(envLineChild) == "" {
		t.Skip("run by TestFailuresPointAtTheUsersLine")
	}
	rep := Run(t, instantSim(WithSLO("ttft.p50<=1us"))...) // user's line: the step fails
	AssertP95TTFT(t, &rep.Steps[0], "1us")                 // user's line: the assertion fails
}

// markedLines are the numbers of the lines of file that hold marker.
func markedLines(t *testing.T, file, marker string) []int {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var lines []int
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.Contains(sc.Text(), marker) && !strings.Contains(sc.Text(), "markedLines") {
			lines = append(lines, n)
		}
	}
	return lines
}

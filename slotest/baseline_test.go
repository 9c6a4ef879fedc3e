package slotest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/vllmsim"
)

func TestBaselineCatchesASlowerServer(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	path := filepath.Join(t.TempDir(), "baseline.json")
	opts := func(profile string, extra ...Option) []Option {
		return append([]Option{WithSim(vllmsim.Config{ProfileName: profile}), WithFixture("fixed:512:8"), WithRates(20),
			WithArrival("constant"), WithDuration(2 * time.Second), WithWarmup(0), WithSLO("ttft.p50<=10s"),
			WithThresholds(clientQuiet)}, extra...)
	}
	// Record on an instant server: a recording runs whole windows, even
	// with the gate's WithUntilDecided.
	t.Run("record", func(t *testing.T) {
		t.Setenv(EnvUpdateBaselines, "1")
		Run(t, opts("instant", WithBaseline(path, 0), WithUntilDecided())...)
	})
	base, err := load.ReadBaseline(path)
	require.NoError(t, err)
	require.Len(t, base.Steps, 1)
	assert.Nil(t, base.Steps[0].UntilDecided, "recorded without looks: its whole window")

	// The modelled H100 is far slower than instant: a regression, and the
	// step fails although its SLO holds.
	rep, err := measureAsRun(t, opts("h100-llama3-8b", WithBaseline(path, 0.5))...)
	require.NoError(t, err)
	st := rep.Steps[0]
	assert.True(t, st.SLO[0].Pass)
	require.Len(t, st.Baseline, 1)
	assert.True(t, st.Baseline[0].Regressed, "%+v", st.Baseline[0])
	assert.Equal(t, report.VerdictFail, st.Verdict)
	var rec recordingTB
	CheckStep(&rec, &st)
	require.Len(t, rec.errors, 1)
	assert.Contains(t, rec.errors[0], "slower than its baseline: ttft.p50")
	assert.Contains(t, rec.errors[0], "REGRESSED")

	// The same server against itself, with room for timing noise: no regression.
	rep, err = measureAsRun(t, opts("instant", WithBaseline(path, 5))...)
	require.NoError(t, err)
	assert.False(t, rep.Steps[0].Baseline[0].Regressed, "%+v", rep.Steps[0].Baseline[0])
	assert.Equal(t, report.VerdictPass, rep.Steps[0].Verdict)

	// Another fixture is another workload: refused before the load, with
	// both fixtures named.
	rep, err = measureAsRun(t, append(opts("instant", WithBaseline(path, 5)), WithFixture("fixed:512:9"))...)
	assert.Nil(t, rep)
	assert.ErrorIs(t, err, load.ErrBaselineMismatch)
	assert.ErrorContains(t, err, "the baseline was recorded with fixture fixed:512:8")
	assert.ErrorContains(t, err, "this run uses fixed:512:9")
}

// measureAsRun is measureRun with the steps Run measures: shortened under
// -short, as the baseline recorded by Run was.
func measureAsRun(t *testing.T, opts ...Option) (*report.Report, error) {
	t.Helper()
	cfg := newConfig(opts...)
	if testing.Short() {
		shorten(&cfg)
	}
	p, err := cfg.build()
	require.NoError(t, err)
	return load.Measure(context.Background(), p)
}

// A baseline that cannot be written is found before the load: the gate
// fails at once, before its first step, not after its steps have run. The
// gate runs in a child process, since it must fail.
func TestABaselinePathThatCannotBeWrittenFailsBeforeTheLoad(t *testing.T) {
	if path := os.Getenv("LLMSLO_SLOTEST_BAD_BASELINE"); path != "" {
		t.Setenv(EnvUpdateBaselines, "1")
		Run(t, instantSim(WithBaseline(path, 0))...)
		return
	}
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	cmd := exec.Command(os.Args[0], "-test.run", "^TestABaselinePathThatCannotBeWrittenFailsBeforeTheLoad$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "LLMSLO_SLOTEST_BAD_BASELINE="+filepath.Join(file, "gate.json"))
	start := time.Now()
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the gate fails:\n%s", out)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Contains(t, string(out), "cannot record the baseline in "+filepath.Join(file, "gate.json"))
	assert.NotContains(t, string(out), "rate=20", "no step ran")
}

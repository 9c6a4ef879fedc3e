package main

import (
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load"
)

// countingServer answers GET /v1/models as vLLM does and counts every
// request it gets: a setup mistake must be refused before any.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model","max_model_len":4096}]}`))
			return
		}
		http.Error(w, "not served", http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// snapshot is every file under dir with its contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	}))
	return files
}

func TestSetupMistakesAreRefusedBeforeTheLoad(t *testing.T) {
	srv, requests := countingServer(t)
	dir := t.TempDir()
	file, folder, gate := filepath.Join(dir, "afile"), filepath.Join(dir, "afolder"), filepath.Join(dir, "gate.json")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	require.NoError(t, os.Mkdir(folder, 0o755))
	require.NoError(t, os.WriteFile(gate, []byte(`{"recorded":"by run"}`), 0o644))
	before := snapshot(t, dir)
	short := []string{"--fixture", "azure-conv-2023", "--duration", "20s", "--rates", "2,4,8,16"}
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"report under a file", []string{"run", "--rates", "2", "--report", filepath.Join(file, "out", "r.json")}, []string{"--report", "not a directory"}},
		{"html naming a directory", []string{"run", "--rates", "2", "--html", folder}, []string{"--html", "is a directory"}},
		{"requests-out under a file", []string{"run", "--rates", "2", "--requests-out", filepath.Join(file, "r.jsonl")}, []string{"--requests-out"}},
		{"baseline to record under a file", []string{"run", "--rates", "2", "--baseline", filepath.Join(file, "b.json"), "--update-baseline"}, []string{"--baseline"}},
		{"report and html the same file", []string{"run", "--rates", "2", "--report", filepath.Join(dir, "r"), "--html", filepath.Join(dir, "r")}, []string{"--report", "--html"}},
		{"tune shed-p99 without the gate", []string{"tune", "--rates", "2", "--no-overload", "--shed-p99", "100ms"}, []string{"--shed-p99", "--no-overload"}},
		{"until-decided with overload", []string{"run", "--rates", "2", "--until-decided", "--overload"}, []string{"--until-decided", "--overload"}},
		{"min-duration without until-decided", []string{"run", "--rates", "2", "--min-duration", "5s"}, []string{"--min-duration", "--until-decided"}},
		{"min-duration over the cap", []string{"run", "--rates", "2", "--until-decided", "--duration", "20s", "--min-duration", "30s"}, []string{"--min-duration 30s", "--duration"}},
		{"run shed-p99 without overload", []string{"run", "--rates", "2", "--shed-p99", "100ms"}, []string{"--shed-p99", "--overload"}},
		{"tune precision 1.5", []string{"tune", "--rates", "2", "--precision", "1.5"}, []string{"--precision 1.5", "[0, 1)"}},
		{"sweep precision negative", []string{"sweep", "--rates", "2", "--precision", "-0.1"}, []string{"--precision"}},
		{"sim-args with a URL", []string{"tune", "--rates", "2", "--sim-args", "--max-num-seqs 8"}, []string{"--sim-args", "--target"}},
		{"vllm image with a URL", []string{"run", "--rates", "2", "--image", "vllm/vllm-openai:v0.9"}, []string{"--image", "--target vllm"}},
		{"tolerance without baseline", []string{"run", "--rates", "2", "--baseline-tolerance", "0.2"}, []string{"--baseline-tolerance", "--baseline FILE"}},
		{"tolerance when recording", []string{"run", "--rates", "2", "--baseline", filepath.Join(dir, "b.json"), "--update-baseline", "--baseline-tolerance", "0.2"}, []string{"--baseline-tolerance", "--update-baseline"}},
		{"reset running without reset", []string{"run", "--rates", "2", "--reset-running-requests", "--reset-prefix-cache=false"}, []string{"--reset-running-requests", "--reset-prefix-cache"}},
		{"cancel-after without cancel-rate", []string{"run", "--rates", "2", "--cancel-after", "1s"}, []string{"--cancel-after", "--cancel-rate"}},
		{"max-think without sessions", []string{"run", "--rates", "2", "--fixture", "fixed:32:8", "--max-think", "1s"}, []string{"--max-think", "--fixture"}},
		{"sweep update-baseline", []string{"sweep", "--rates", "2", "--baseline", gate, "--update-baseline"}, []string{"--baseline", "only llmslo run"}},
		{"sweep update-baseline alone", []string{"sweep", "--rates", "2", "--update-baseline"}, []string{"--update-baseline", "only llmslo run"}},
		{"tune update-baseline", []string{"tune", "--rates", "2", "--baseline=" + gate, "--update-baseline"}, []string{"--baseline", "only llmslo run"}},
		{"sweep too short for p95", append([]string{"sweep"}, short...), []string{"--duration 20s", "2 req/s", "ttft.p95", "needs 200", "--duration 2m0s"}},
		{"sweep needs more than max-duration", []string{"sweep", "--fixture", "azure-conv-2023", "--rates", "0.5,4", "--max-duration", "3m"}, []string{"0.5 req/s", "ttft.p95", "--max-duration 3m0s"}},
		{"max-duration with duration", []string{"sweep", "--rates", "20", "--duration", "1m", "--max-duration", "3m"}, []string{"--max-duration", "--duration"}},
		{"server variants of a running server", []string{"sweep", "--rates", "20", "--server-variant", "--max-num-seqs 8"}, []string{"--server-variant", "--target"}},
		{"tune too short for p95", append([]string{"tune"}, short...), []string{"--duration 20s", "2 req/s", "ttft.p95", "needs 200"}},
		{"versus-sim-args without versus", []string{"run", "--rates", "2", "--versus-sim-args", "--max-num-seqs 8"}, []string{"--versus-sim-args", "needs --versus"}},
		{"versus-sim-args with a URL base", []string{"run", "--rates", "2", "--versus", "http://127.0.0.1:1", "--versus-sim-args", "--max-num-seqs 8"}, []string{"--versus-sim-args", "--versus sim"}},
		{"versus in a mode unknown", []string{"run", "--rates", "2", "--versus", "sim", "--versus-mode", "interleave"}, []string{"--versus-mode", "interleave", "together or alternate"}},
		{"versus block without alternating", []string{"run", "--rates", "2", "--versus", "sim", "--versus-block", "5s"}, []string{"--versus-block", "alternate"}},
		{"versus window not whole seconds", []string{"run", "--rates", "2", "--duration", "30500ms", "--versus", "sim", "--versus-mode", "alternate"}, []string{"--duration", "whole seconds"}},
		{"versus block without versus", []string{"run", "--rates", "2", "--versus-block", "5s"}, []string{"--versus-block", "needs --versus"}},
		{"alternating until decided", []string{"run", "--rates", "2", "--versus", "sim", "--versus-mode", "alternate", "--until-decided"}, []string{"--until-decided", "--versus-mode together"}},
		{"versus with overload", []string{"run", "--rates", "2", "--versus", "sim", "--overload"}, []string{"--versus", "--overload"}},
		{"versus vllm of another target", []string{"run", "--rates", "2", "--versus", "vllm"}, []string{"--versus vllm", "--target vllm"}},
		{"versus vllm args with a sim base", []string{"run", "--rates", "2", "--versus", "sim", "--versus-vllm-args", "--max-num-seqs 8"}, []string{"--versus-vllm-args", "--versus vllm"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			requests.Store(0)
			args := append(append([]string(nil), tc.args...), "--target", srv.URL, "--quiet")
			start := time.Now()
			code, _, stderr := runArgs(t, args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Less(t, time.Since(start), 2*time.Second)
			assert.Zero(t, requests.Load(), "no request before the setup is checked")
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
			assert.Equal(t, before, snapshot(t, dir), "nothing written")
		})
	}
}

func TestMergeProbesItsOutputsFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	code, _, stderr := runArgs(t, "merge", "-o", filepath.Join(file, "m.json"), filepath.Join(dir, "shard-0.json"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "-o "+filepath.Join(file, "m.json")+": "+file+" is a file, not a directory")
}

func TestOutputProbeAcceptsNewAndExistingFiles(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.json")
	require.NoError(t, os.WriteFile(existing, []byte("kept"), 0o644))
	f := runFlags{report: filepath.Join(dir, "new", "deeper", "r.json"), html: existing, requestsOut: filepath.Join(dir, "r.jsonl")}
	require.NoError(t, f.checkOutputs())
	assert.Equal(t, map[string]string{existing: "kept"}, snapshot(t, dir), "the probe leaves nothing behind and truncates nothing")
	_, err := os.Stat(filepath.Join(dir, "new"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestHelpExitsZeroEverywhere(t *testing.T) {
	require.NotEmpty(t, commands)
	var all [][]string
	for name := range commands {
		all = append(all, []string{name, "-h"}, []string{name, "--help"})
	}
	all = append(all, []string{"fixture", "build", "-h"}, []string{"fixture", "stats", "--help"}, []string{"fixture", "build", "--from", "x", "-h"})
	for _, args := range all {
		code, _, stderr := runArgs(t, args...)
		assert.Equal(t, exitPass, code, "%v: %s", args, stderr)
		assert.NotEmpty(t, stderr, "%v prints its usage", args)
	}
}

func TestHelpCommandPrintsItsUsage(t *testing.T) {
	for name := range commands {
		code, _, stderr := runArgs(t, "help", name)
		assert.Equal(t, exitPass, code, "help %s: %s", name, stderr)
		assert.NotContains(t, stderr, "commands:", "help %s prints the command's usage, not the list", name)
	}
	code, _, stderr := runArgs(t, "help", "run")
	assert.Equal(t, exitPass, code)
	assert.Contains(t, stderr, "-rates")
	code, _, stderr = runArgs(t, "help", "fixture", "build")
	assert.Equal(t, exitPass, code)
	assert.Contains(t, stderr, "-from")
	code, _, stderr = runArgs(t, "help", "nosuch")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `unknown command "nosuch"`)
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"version"}} {
		code, stdout, stderr := runArgs(t, args...)
		assert.Equal(t, exitPass, code, "%v: %s", args, stderr)
		assert.Regexp(t, regexp.MustCompile(`^llmslo \S+`), stdout, "%v", args)
		assert.Equal(t, "llmslo "+version()+"\n", stdout)
	}
}

func TestVersionNamesTheRevision(t *testing.T) {
	checkout := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "e2aa9da"}, {Key: "vcs.modified", Value: "true"}}}
	assert.Equal(t, "(devel) (revision e2aa9da, modified)", versionOf(checkout))
	release := &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}
	assert.Equal(t, "v0.3.0", versionOf(release))
}

func TestUnknownFixtureSuggestsTheNearest(t *testing.T) {
	code, _, stderr := runArgs(t, "run", "--rates", "2", "--fixture", "azure-conv-2024", "--quiet")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `--fixture: no fixture "azure-conv-2024"`)
	assert.Contains(t, stderr, "azure-code-2023, azure-conv-2023")
	assert.Contains(t, stderr, "fixed:IN:OUT")
	assert.Contains(t, stderr, "did you mean azure-conv-2023?")
}

func TestBoolFlagValueApartGetsTheFix(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--rates", "2", "--salt", "false"}, `--salt takes its value with "=": --salt=false`},
		{[]string{"sweep", "--rates", "2", "-quiet", "true"}, `--quiet takes its value with "=": --quiet=true`},
		{[]string{"tune", "--rates", "2", "--reset-prefix-cache", "false"}, "--reset-prefix-cache=false"},
	}
	for _, tc := range cases {
		code, _, stderr := runArgs(t, tc.args...)
		assert.Equal(t, exitUsage, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
	}
	code, _, stderr := runArgs(t, "run", "--rates", "2", "false")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `unexpected argument "false"`)
	assert.NotContains(t, stderr, "takes its value", "no bool flag before it")
}

// Without --duration, a search lengthens its steps to what the lowest
// rate's gated percentiles need, and says so.
func TestSearchSizesItsSteps(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"--rates", "2,4,8,16"}, 2 * time.Minute}, // 200 samples of ttft.p95 at 2 req/s: 100 s, 20% over
		{[]string{"--rates", "20"}, time.Minute},           // 1200 samples in the default minute
	} {
		fs := flagSetFor(t)
		s := registerSearch(fs, 0, "", "")
		require.NoError(t, fs.Parse(append([]string{"--fixture", "azure-conv-2023", "--quiet"}, tc.args...)))
		var stderr strings.Builder
		plan, err := s.check(explicitFlags(fs), &stderr)
		require.NoError(t, err, "%v", tc.args)
		assert.Equal(t, tc.want, plan.Duration, "%v", tc.args)
		assert.NoError(t, checkStepSamples(plan), "the sized steps, checked again, give their samples")
		if tc.want != time.Minute {
			assert.Contains(t, stderr.String(), "steps last 2m0s, not 1m0s: the step at 2 req/s needs that for 200 samples of ttft.p95")
		} else {
			assert.Empty(t, stderr.String())
		}
	}
}

func flagSetFor(t *testing.T) *flag.FlagSet {
	t.Helper()
	fs := flag.NewFlagSet(t.Name(), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// run keeps the rates it is given, but says before the load which step
// will lack samples.
func TestRunWarnsOfAShortStep(t *testing.T) {
	fs := flagSetFor(t)
	var f runFlags
	f.register(fs)
	require.NoError(t, fs.Parse([]string{"--fixture", "azure-conv-2023", "--rates", "2,40", "--duration", "20s"}))
	plan, err := f.plan(io.Discard)
	require.NoError(t, err)
	var stderr strings.Builder
	warnShortSteps(plan, &stderr)
	assert.Contains(t, stderr.String(), "note: the step at 2 req/s gives about 40 samples of ttft.p95 in 20s, of the 200 it needs")
	plan.Rates = []float64{40}
	stderr.Reset()
	warnShortSteps(plan, &stderr)
	assert.Empty(t, stderr.String())
}

// The --duration a refusal names, applied, passes the same check.
func TestTheDurationAShortStepNamesIsEnough(t *testing.T) {
	fs := flagSetFor(t)
	s := registerSearch(fs, 0, "", "")
	require.NoError(t, fs.Parse([]string{"--fixture", "azure-conv-2023", "--quiet", "--rates", "2,4", "--duration", "20s"}))
	_, err := s.check(explicitFlags(fs), io.Discard)
	require.ErrorContains(t, err, "needs --duration 2m0s")
	fs = flagSetFor(t)
	s = registerSearch(fs, 0, "", "")
	require.NoError(t, fs.Parse([]string{"--fixture", "azure-conv-2023", "--quiet", "--rates", "2,4", "--duration", "2m"}))
	plan, err := s.check(explicitFlags(fs), io.Discard)
	require.NoError(t, err)
	assert.NoError(t, checkStepSamples(plan))
}

// A typo in the last server variant is found before the first variant's
// sweep runs.
func TestAServerVariantTypoIsRefusedBeforeAnySweep(t *testing.T) {
	start := time.Now()
	code, stdout, stderr := runArgs(t, "sweep", "--fixture", "fixed:64:8", "--rates", "20,40", "--duration", "2s", "--warmup", "0s",
		"--hazard-off", "too_few_samples", "--server-variant", "--max-num-seqs 4", "--server-variant", "--max-num-seqs abc", "--quiet")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Contains(t, stderr, `server variant "--max-num-seqs abc"`)
	assert.NotContains(t, stdout, "rate=20", "no step ran")
}

// Alternating side by side, the --duration the note names is whole blocks,
// and applied it is taken and leaves no note.
func TestAShortAlternatingStepNamesWholeBlocks(t *testing.T) {
	fs := flagSetFor(t)
	var f runFlags
	f.register(fs)
	require.NoError(t, fs.Parse([]string{"--fixture", "azure-conv-2023", "--rates", "2", "--duration", "30s"}))
	plan, err := f.plan(io.Discard)
	require.NoError(t, err)
	plan.Versus, plan.VersusMode, plan.VersusBlock = plan.Target, load.VersusAlternate, 15*time.Second
	var stderr strings.Builder
	warnShortSteps(plan, &stderr)
	m := regexp.MustCompile(`--duration (\S+) would give them`).FindStringSubmatch(stderr.String())
	require.Len(t, m, 2, stderr.String())
	need, err := time.ParseDuration(m[1])
	require.NoError(t, err)
	assert.Zero(t, need%time.Second, "%v: whole seconds", need)
	plan.Duration = need
	stderr.Reset()
	warnShortSteps(plan, &stderr)
	assert.Empty(t, stderr.String())
	assert.NoError(t, plan.Validate(), "the duration named is one an alternating run takes")
}

// A vllm base's own serve flags are checked before any container starts.
func TestAVLLMBasesOwnFlagsAreChecked(t *testing.T) {
	code, _, stderr := runArgs(t, "run", "--rates", "2", "--target", "vllm", "--model", "m", "--versus", "vllm", "--versus-vllm-args", "--model other", "--quiet")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "--versus-vllm-args")
	assert.Contains(t, stderr, "--model is set by this package")
}

// Recording a baseline runs whole windows, --until-decided or not, and
// says so: a gate compared with a step stopped early would compare only
// its seconds (load.RecordBaseline refuses one).
func TestRecordingABaselineRunsWholeWindows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "base.json")
	for _, update := range []bool{true, false} {
		fs := flagSetFor(t)
		var f runFlags
		f.register(fs)
		f.registerBaseline(fs)
		args := []string{"--fixture", "azure-conv-2023", "--rates", "6", "--duration", "30s", "--until-decided", "--min-duration", "5s"}
		if update {
			args = append(args, "--baseline", path, "--update-baseline")
		}
		require.NoError(t, fs.Parse(args))
		var stderr strings.Builder
		plan, err := f.plan(&stderr)
		require.NoError(t, err)
		if update {
			assert.False(t, plan.UntilDecided, "the recording runs its whole --duration")
			assert.Zero(t, plan.MinDuration)
			assert.Contains(t, stderr.String(), "recording a baseline: each step runs its whole --duration 30s (--until-decided stops the runs compared with it)")
			continue
		}
		assert.True(t, plan.UntilDecided, "a gate without a recording stops when decided")
		assert.Equal(t, 5*time.Second, plan.MinDuration)
		assert.NotContains(t, stderr.String(), "recording a baseline")
	}
}

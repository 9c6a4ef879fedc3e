package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load"
)

// A setting Plan validation refuses is named by the flag that set it: the
// plan checks it, the command only names it.
func TestPlanSettingsAreRefusedByTheirFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rates", "0"}, "--rates 0: want a positive number of requests per second"},
		{[]string{"--rates", "2,2e6"}, "--rates 2e+06: want a positive number of requests per second, at most 1000000"},
		{[]string{"--rates", "2", "--duration", "0s"}, "--duration 0s: want a positive duration"},
		{[]string{"--rates", "2", "--warmup", "-1s"}, "--warmup -1s: want 0 (none) or a positive duration"},
		{[]string{"--rates", "2", "--cancel-rate", "0.1", "--cancel-after", "-1s"}, "--cancel-rate needs --cancel-after, e.g. --cancel-after 2s"},
	} {
		code, _, stderr := runArgs(t, append([]string{"run"}, c.args...)...)
		assert.Equal(t, exitUsage, code, "%v", c.args)
		assert.Contains(t, stderr, "llmslo run: "+c.want, "%v", c.args)
	}
}

// Every Plan field the command names is one of its flags.
func TestPlanFlagsAreFlags(t *testing.T) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var f runFlags
	f.register(fs)
	f.registerBaseline(fs)
	var vf versusFlags
	vf.register(fs)
	fs.Bool("overload", false, "") // run's own, beside the shared flags
	for field, name := range planFlags {
		name, _, _ = strings.Cut(name[2:], "=")
		assert.NotNil(t, fs.Lookup(name), "%s names --%s, no flag of run's", field, name)
	}
}

// A vllm base takes its own image and serve flags, after --target vllm's.
func TestAVLLMBaseHasItsOwnImageAndFlags(t *testing.T) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var f runFlags
	f.register(fs)
	var vf versusFlags
	vf.register(fs)
	require.NoError(t, fs.Parse([]string{"--target", "vllm", "--model", "m", "--vllm-args", "--max-num-seqs 64",
		"--versus", "vllm", "--versus-image", "base:1", "--versus-vllm-args", "--max-num-seqs 32 --enable-chunked-prefill"}))
	var p load.Plan
	require.NoError(t, vf.config(&p, &f, explicitFlags(fs), nil))
	ct, ok := p.Versus.(load.ContainerTarget)
	require.True(t, ok, "%T", p.Versus)
	assert.Equal(t, "base:1", ct.Image)
	assert.Equal(t, []string{"--max-num-seqs", "32", "--enable-chunked-prefill"}, ct.Args)
}

package main

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/golist"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/vllmsim/simtarget"
)

// The command must not link the testing package (nor testify, nor
// testcontainers-go, which imports both): it starts the vllm target through
// the Docker API instead.
func TestBinaryLinksNoTestingPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("go list loads every dependency")
	}
	deps := golist.List(t, "-deps", ".")
	require.Contains(t, deps, "github.com/llmslo/llmslo/containers/vllm/dockerrun", "the list is the command's")
	assert.Empty(t, golist.Linked(deps, "testing", "github.com/stretchr/testify", "github.com/testcontainers/"),
		"the command links these")
}

func vllmConfig(t *testing.T, args ...string) (load.Plan, error) {
	t.Helper()
	var f runFlags
	fs := flag.NewFlagSet("llmslo run", flag.ContinueOnError)
	f.register(fs)
	require.NoError(t, fs.Parse(append([]string{"--rates", "1", "--quiet"}, args...)))
	return f.plan(nil)
}

func TestVLLMFlags(t *testing.T) {
	t.Setenv(envVLLMImage, "")
	t.Setenv("SLOTEST_VLLM_IMAGE", "slotest/image:ignored") // the go test face's, not the command's

	c, err := vllmConfig(t, "--target", "vllm", "--model", "org/m")
	require.NoError(t, err)
	require.IsType(t, load.ContainerTarget{}, c.Target)
	assert.Equal(t, defaultVLLMImage, c.Target.(load.ContainerTarget).Image)
	require.IsType(t, dockerStarter{}, c.Target.(load.ContainerTarget).Starter)

	t.Setenv(envVLLMImage, "env/image:1")
	c, err = vllmConfig(t, "--target", "vllm", "--model", "org/m")
	require.NoError(t, err)
	assert.Equal(t, "env/image:1", c.Target.(load.ContainerTarget).Image)

	c, err = vllmConfig(t, "--target", "vllm", "--model", "org/m", "--image", "flag/image:2", "--gpus", "2",
		"--vllm-args", "--max-num-seqs 64", "--hf-cache", t.TempDir(), "--startup-timeout", "1m")
	require.NoError(t, err)
	assert.Equal(t, "flag/image:2", c.Target.(load.ContainerTarget).Image)

	c, err = vllmConfig(t)
	require.NoError(t, err)
	assert.IsType(t, simtarget.Sim{}, c.Target, "no container for the simulator")
}

func TestVLLMFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--target", "vllm"}, "--target vllm needs --model"},
		{[]string{"--target", "vllm", "--model", "m", "--gpus", "two"}, `--gpus "two": want all, none or a count`},
		{[]string{"--target", "vllm", "--model", "m", "--gpus", "-1"}, `--gpus "-1"`},
		{[]string{"--target", "vllm", "--model", "m", "--vllm-args", "--port 9000"}, "--vllm-args: WithVLLMArgs: --port is set by this package"},
		{[]string{"--target", "vllm", "--model", "m", "--hf-cache", "/no/such/dir"}, "--hf-cache: WithHFCache:"},
		{[]string{"--target", "vllm", "--model", "m", "--startup-timeout", "0s"}, "WithStartupTimeout: 0s is not a positive duration"},
		{[]string{"--image", "x"}, "are for --target vllm"},
		{[]string{"--target", "http://127.0.0.1:1", "--gpus", "all"}, "are for --target vllm"},
	} {
		_, err := vllmConfig(t, tc.args...)
		require.Error(t, err, "%v", tc.args)
		assert.Contains(t, err.Error(), tc.want, "%v", tc.args)
	}
	// Through the command: a usage error, exit 3.
	code, _, stderr := runArgs(t, "run", "--rates", "1", "--target", "vllm", "--quiet")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "needs --model")
}

package vllmcontainer

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"

	"github.com/llmslo/llmslo/containers/vllm"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/slotest"
)

// Importing the package is what lets the vllm target start a container,
// and Options' customizers reach it. Each case runs a gate in a child
// process (a gate that cannot start its target fails its test) against a
// image that does not exist, and reads why it failed.
func TestImportingThePackageRegistersItsStarter(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		// An image no registry holds: the start fails at once wherever it runs.
		t.Setenv(slotest.EnvVLLMImage, absentImage)
		opts := []slotest.Option{slotest.WithTarget("vllm"), slotest.WithModel("m"), slotest.WithFixture("fixed:8:2"), slotest.WithRates(1)}
		if os.Getenv(childEnv) == "options" {
			opts = append(opts, Options(vllm.WithGPUs(0)))
		}
		slotest.Run(t, opts...)
		return
	}
	gate := func(mode string) string {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestImportingThePackageRegistersItsStarter$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"="+mode)
		out, err := cmd.CombinedOutput()
		require.Error(t, err, "a gate whose container cannot start fails:\n%s", out)
		return string(out)
	}
	registered := gate("registered")
	assert.NotContains(t, registered, "import github.com/llmslo/llmslo/slotest/vllmcontainer", "the import registered the starter")
	assert.Contains(t, registered, "start vllm target from "+absentImage, "the registered starter was asked")
	assert.Contains(t, gate("options"), "WithGPUs: 0 is not a GPU count", "Options' customizers reach the container")
}

const absentImage = "llmslo.invalid/absent:none"

// childEnv makes the test binary run one gate as a child process.
const childEnv = "LLMSLO_VLLMCONTAINER_CHILD"

// Bad options fail in vllm.Run, before Docker is asked anything.
func TestStarterPassesItsOptions(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	s := Starter{Opts: []testcontainers.ContainerCustomizer{vllm.WithGPUs(0)}}
	_, err := s.StartContainer(context.Background(), load.ContainerRequest{Image: "img", Model: "m", DevMode: true})
	assert.EqualError(t, err, "vllm: WithGPUs: 0 is not a GPU count (use a positive number or AllGPUs)")
}

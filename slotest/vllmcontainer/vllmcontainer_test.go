package vllmcontainer

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"

	"github.com/llmslo/llmslo/containers/vllm"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/slotest"
)

// Importing the package is what lets the vllm target start a container:
// the plan's target then carries this package's starter.
func TestImportingThePackageRegistersItsStarter(t *testing.T) {
	vllmTarget := []slotest.Option{slotest.WithTarget("vllm"), slotest.WithModel("m"), slotest.WithFixture("fixed:8:2")}
	plan, err := slotest.NewPlan(vllmTarget...)
	require.NoError(t, err)
	require.IsType(t, load.ContainerTarget{}, plan.Target)
	assert.Equal(t, Starter{}, plan.Target.(load.ContainerTarget).Starter)

	a, b := vllm.WithVLLMArgs("--max-num-seqs", "8"), vllm.WithStartupTimeout(1)
	plan, err = slotest.NewPlan(append(vllmTarget, Options(a, b))...)
	require.NoError(t, err)
	s, ok := plan.Target.(load.ContainerTarget).Starter.(Starter)
	require.True(t, ok, "Options sets this package's starter")
	assert.Len(t, s.Opts, 2)
}

// Bad options fail in vllm.Run, before Docker is asked anything.
func TestStarterPassesItsOptions(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	s := Starter{Opts: []testcontainers.ContainerCustomizer{vllm.WithGPUs(0)}}
	_, err := s.StartContainer(context.Background(), load.ContainerRequest{Image: "img", Model: "m", DevMode: true})
	assert.EqualError(t, err, "vllm: WithGPUs: 0 is not a GPU count (use a positive number or AllGPUs)")
}

package slotest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"

	"github.com/llmslo/llmslo/containers/vllm"
	"github.com/llmslo/llmslo/load"
)

func TestTheVLLMTargetStartsThroughTestcontainers(t *testing.T) {
	c := newConfig()
	assert.IsType(t, vllmStarter{}, c.container)

	a, b := vllm.WithVLLMArgs("--max-num-seqs", "8"), vllm.WithStartupTimeout(1)
	base := newConfig(WithVLLMOptions(a))
	c = base
	WithVLLMOptions(b)(&c)
	require.IsType(t, vllmStarter{}, c.container)
	assert.Len(t, c.container.(vllmStarter).opts, 2)
	assert.Len(t, base.container.(vllmStarter).opts, 1, "adding options to a copy leaves the original alone")

	other := load.ContainerStarterFunc(func(context.Context, load.ContainerRequest) (load.StartedContainer, error) {
		return load.StartedContainer{}, nil
	})
	c = newConfig(func(c *config) { c.container = other }, WithVLLMOptions(a))
	require.IsType(t, vllmStarter{}, c.container, "WithVLLMOptions puts the testcontainers starter back")
	assert.Len(t, c.container.(vllmStarter).opts, 1)
}

// Bad options fail in vllm.Run, before the engine is asked anything.
func TestVLLMStarterPassesItsOptions(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	s := vllmStarter{opts: []testcontainers.ContainerCustomizer{vllm.WithGPUs(0)}}
	_, err := s.StartContainer(context.Background(), load.ContainerRequest{Image: "img", Model: "m", DevMode: true})
	assert.EqualError(t, err, "vllm: WithGPUs: 0 is not a GPU count (use a positive number or AllGPUs)")
}

// Package vllmcontainer lets slotest start its vllm target: a vLLM
// container (or any image that takes vLLM's serve flags) started through
// testcontainers-go and package containers/vllm, when SLOTEST_TARGET=vllm
// or WithTarget("vllm") asks for one.
//
// Import it in a test package that may run against a container, with a
// blank import for the defaults or through Options for the container's
// options. A gate that only runs the simulator or a URL does not import it,
// and so links no testcontainers-go and no Docker client.
package vllmcontainer

import (
	"context"

	"github.com/testcontainers/testcontainers-go"

	"github.com/llmslo/llmslo/containers/vllm"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/slotest"
)

func init() { slotest.RegisterContainerStarter(Starter{}) }

// Options has slotest start the vllm target with these options of package
// containers/vllm (GPUs, serve flags, start-up timeout), after the
// defaults (the model, dev mode). It replaces a starter set before it:
// pass every option in one call.
func Options(opts ...testcontainers.ContainerCustomizer) slotest.Option {
	return slotest.WithContainerStarter(Starter{Opts: opts})
}

// Starter starts the vllm target through testcontainers-go.
type Starter struct {
	Opts []testcontainers.ContainerCustomizer
}

// StartContainer starts req's image serving req's model, with dev mode
// when asked (the prefix cache can then be reset), the starter's options,
// then req's serve flags.
func (s Starter) StartContainer(ctx context.Context, req load.ContainerRequest) (load.StartedContainer, error) {
	opts := []testcontainers.ContainerCustomizer{vllm.WithModel(req.Model)}
	if req.DevMode {
		opts = append(opts, vllm.WithDevMode())
	}
	opts = append(opts, s.Opts...)
	if len(req.Args) > 0 {
		opts = append(opts, vllm.WithVLLMArgs(req.Args...))
	}
	c, err := vllm.Run(ctx, req.Image, opts...)
	if err != nil {
		return load.StartedContainer{}, err
	}
	stop := func() error { return testcontainers.TerminateContainer(c) }
	base, err := c.BaseURL(ctx)
	if err != nil {
		_ = stop()
		return load.StartedContainer{}, err
	}
	return load.StartedContainer{URL: base, Model: c.Model(), Stop: stop}, nil
}

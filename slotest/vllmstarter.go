package slotest

import (
	"context"

	"github.com/testcontainers/testcontainers-go"

	"github.com/llmslo/llmslo/containers/vllm"
	"github.com/llmslo/llmslo/load"
)

// vllmStarter starts the vllm target through testcontainers-go, so that
// tests get its options (WithVLLMOptions) and its handling of engines.
type vllmStarter struct {
	opts []testcontainers.ContainerCustomizer
}

func (s vllmStarter) StartContainer(ctx context.Context, req load.ContainerRequest) (load.StartedContainer, error) {
	opts := []testcontainers.ContainerCustomizer{vllm.WithModel(req.Model)}
	if req.DevMode {
		opts = append(opts, vllm.WithDevMode())
	}
	opts = append(opts, s.opts...)
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

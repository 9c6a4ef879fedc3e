package vllm

import (
	"context"
	"fmt"

	"github.com/testcontainers/testcontainers-go"

	"github.com/llmslo/llmslo/containers/vllm/serve"
)

// ErrNoGPU is returned (wrapped) by Run when GPUs are asked for and the
// Docker engine has no NVIDIA runtime.
var ErrNoGPU = serve.ErrNoGPU

// checkGPURuntime asks the engine testcontainers-go uses for its runtimes.
func checkGPURuntime(ctx context.Context) error {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return fmt.Errorf("vllm: GPUs were asked for, and the Docker engine's runtimes could not be listed: %w", err)
	}
	defer cli.Close()
	return serve.CheckGPURuntime(ctx, cli)
}

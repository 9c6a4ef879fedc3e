package vllm

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// ErrNoGPU is returned (wrapped) by Run when GPUs are asked for and the
// Docker engine has no NVIDIA runtime.
var ErrNoGPU = errors.New("no GPU available to Docker")

// nvidiaRuntime is the runtime name the NVIDIA Container Toolkit registers
// with Docker (docker info: Runtimes).
const nvidiaRuntime = "nvidia"

// runtimesFunc lists the Docker engine's runtimes.
type runtimesFunc func(ctx context.Context) ([]string, error)

// dockerRuntimes asks the engine for its runtimes.
func dockerRuntimes(ctx context.Context) ([]string, error) {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	info, err := cli.Info(ctx, client.InfoOptions{})
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(info.Info.Runtimes))
	for name := range info.Info.Runtimes {
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}

// checkGPURuntime fails unless the engine lists an NVIDIA runtime.
func checkGPURuntime(ctx context.Context, runtimes runtimesFunc) error {
	names, err := runtimes(ctx)
	if err != nil {
		return fmt.Errorf("vllm: GPUs were asked for, and the Docker engine's runtimes could not be listed: %w", err)
	}
	for _, n := range names {
		if n == nvidiaRuntime {
			return nil
		}
	}
	return fmt.Errorf("vllm: GPUs were asked for (WithGPUs), but the Docker engine has no %q runtime (it has: %s); install the NVIDIA Container Toolkit or drop WithGPUs: %w",
		nvidiaRuntime, strings.Join(names, ", "), ErrNoGPU)
}

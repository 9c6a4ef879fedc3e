package serve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/moby/moby/client"
)

// ErrNoGPU is returned (wrapped) by CheckGPURuntime when the Docker engine
// has no NVIDIA runtime.
var ErrNoGPU = errors.New("no GPU available to Docker")

// nvidiaRuntime is the runtime name the NVIDIA Container Toolkit registers
// with Docker (docker info: Runtimes).
const nvidiaRuntime = "nvidia"

// InfoClient is the part of a Docker client CheckGPURuntime needs; the moby
// client and testcontainers-go's both have it.
type InfoClient interface {
	Info(ctx context.Context, options client.InfoOptions) (client.SystemInfoResult, error)
}

// Runtimes lists the engine's runtimes, sorted.
func Runtimes(ctx context.Context, cli InfoClient) ([]string, error) {
	info, err := cli.Info(ctx, client.InfoOptions{})
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(info.Info.Runtimes))
	for name := range info.Info.Runtimes {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// CheckGPURuntime fails unless the engine lists an NVIDIA runtime, so that
// asking for GPUs where there are none fails before anything is created,
// with a message that says what to install.
func CheckGPURuntime(ctx context.Context, cli InfoClient) error {
	names, err := Runtimes(ctx, cli)
	if err != nil {
		return fmt.Errorf("vllm: GPUs were asked for, and the Docker engine's runtimes could not be listed: %w", err)
	}
	if slices.Contains(names, nvidiaRuntime) {
		return nil
	}
	return fmt.Errorf("vllm: GPUs were asked for (WithGPUs), but the Docker engine has no %q runtime (it has: %s); install the NVIDIA Container Toolkit or drop WithGPUs: %w",
		nvidiaRuntime, strings.Join(names, ", "), ErrNoGPU)
}

// HasNVIDIARuntime reports whether names, as Runtimes lists them, include
// the NVIDIA runtime.
func HasNVIDIARuntime(names []string) bool { return slices.Contains(names, nvidiaRuntime) }

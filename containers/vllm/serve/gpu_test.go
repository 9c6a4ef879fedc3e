package serve

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/moby/moby/api/types/system"
	"github.com/moby/moby/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeInfo answers Info with the given runtimes, or fails.
type fakeInfo struct {
	runtimes []string
	err      error
}

func (f fakeInfo) Info(context.Context, client.InfoOptions) (client.SystemInfoResult, error) {
	if f.err != nil {
		return client.SystemInfoResult{}, f.err
	}
	rt := map[string]system.RuntimeWithStatus{}
	for _, n := range f.runtimes {
		rt[n] = system.RuntimeWithStatus{}
	}
	return client.SystemInfoResult{Info: system.Info{Runtimes: rt}}, nil
}

func TestCheckGPURuntime(t *testing.T) {
	ctx := context.Background()
	require.NoError(t, CheckGPURuntime(ctx, fakeInfo{runtimes: []string{"runc", "nvidia", "io.containerd.runc.v2"}}))

	err := CheckGPURuntime(ctx, fakeInfo{runtimes: []string{"runc", "io.containerd.runc.v2"}})
	require.ErrorIs(t, err, ErrNoGPU)
	assert.Contains(t, err.Error(), `no "nvidia" runtime (it has: io.containerd.runc.v2, runc)`)
	assert.Contains(t, err.Error(), "NVIDIA Container Toolkit")

	down := errors.New("engine down")
	err = CheckGPURuntime(ctx, fakeInfo{err: down})
	require.ErrorIs(t, err, down)
	assert.False(t, errors.Is(err, ErrNoGPU))
	assert.True(t, strings.HasPrefix(err.Error(), "vllm: GPUs were asked for"))
}

func TestRuntimesSorted(t *testing.T) {
	names, err := Runtimes(context.Background(), fakeInfo{runtimes: []string{"runc", "nvidia", "crun"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"crun", "nvidia", "runc"}, names)
	assert.True(t, HasNVIDIARuntime(names))
	assert.False(t, HasNVIDIARuntime(names[:1]))
}

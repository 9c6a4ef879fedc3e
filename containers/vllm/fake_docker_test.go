package vllm

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"

	"github.com/llmslo/llmslo/containers/vllm/serve"
	"github.com/llmslo/llmslo/internal/dockergate"
)

// fakeToken is a made-up Hugging Face token.
const fakeToken = "hf_fAkEtOkEn0123456789abcdefXYZ"

func TestRunNeverShowsHFToken(t *testing.T) {
	img := fakeImage(t)
	tests := []struct {
		name string
		opts []testcontainers.ContainerCustomizer
		env  string
	}{
		{name: "from WithHFToken", opts: []testcontainers.ContainerCustomizer{WithHFToken(fakeToken)}},
		{name: "from the environment", env: fakeToken},
		{name: "from a generic WithEnv", opts: []testcontainers.ContainerCustomizer{
			testcontainers.WithEnv(map[string]string{"HUGGING_FACE_HUB_TOKEN": fakeToken}),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HF_TOKEN", tt.env)
			label, id := dockergate.Labelled(t, testcontainers.WithLabels)
			rec := &recordingLog{}
			// The fixture prints both variables, then exits 1.
			opts := append([]testcontainers.ContainerCustomizer{
				WithModel("m"), WithVLLMArgs("--print-env-and-exit", "HF_TOKEN,HUGGING_FACE_HUB_TOKEN"),
				testcontainers.WithLogger(rec), label,
			}, tt.opts...)
			ctr, err := Run(context.Background(), img, opts...)
			assert.Nil(t, ctr)
			require.Error(t, err)

			// The container did see the token: its log line is there, redacted.
			assert.Contains(t, err.Error(), "=[REDACTED]")
			assert.Contains(t, err.Error(), "fakevllm: error: failing on request")
			for e := err; e != nil; e = errors.Unwrap(e) {
				assert.NotContains(t, e.Error(), fakeToken)
			}
			var se *StartError
			require.ErrorAs(t, err, &se)
			for _, l := range se.Logs {
				assert.NotContains(t, l, fakeToken)
			}
			logged := rec.String()
			assert.Contains(t, logged, "[REDACTED]", "testcontainers logged the container's output")
			assert.NotContains(t, logged, fakeToken)
			dockergate.AssertNoContainer(t, id)
		})
	}
}

// The token reaches a server's environment; the simulator stands in for
// vLLM.
func TestRunPassesHFToken(t *testing.T) {
	img := simImage(t)
	label, id := dockergate.Labelled(t, testcontainers.WithLabels)
	ctx := context.Background()
	ctr, err := Run(ctx, img, WithModel("Qwen/Qwen3-0.6B"), WithHFToken(fakeToken), WithStartupTimeout(time.Minute), label)
	require.NoError(t, err)
	inspect, err := ctr.Inspect(ctx)
	require.NoError(t, err)
	assert.True(t, slices.Contains(inspect.Config.Env, "HF_TOKEN="+fakeToken), "the token reaches the container")
	assert.Equal(t, "Qwen/Qwen3-0.6B", ctr.Model())
	terminate(t, ctr)
	dockergate.AssertNoContainer(t, id)
}

func TestRunGPUWithoutNVIDIARuntime(t *testing.T) {
	dockergate.Require(t)
	ctx := context.Background()
	cli, err := client.New(client.FromEnv)
	require.NoError(t, err)
	defer cli.Close()
	names, err := serve.Runtimes(ctx, cli)
	require.NoError(t, err)
	if serve.HasNVIDIARuntime(names) {
		t.Skip("this engine has an NVIDIA runtime: there is no missing GPU to report")
	}
	label, id := dockergate.Labelled(t, testcontainers.WithLabels)
	// The image does not exist: had Run tried to create the container, the
	// error would be about the image.
	ctr, err := Run(ctx, "llmslo/never-built:none", WithModel("m"), WithGPUs(AllGPUs), label)
	assert.Nil(t, ctr)
	require.ErrorIs(t, err, ErrNoGPU)
	assert.True(t, strings.HasPrefix(err.Error(), "vllm: GPUs were asked for (WithGPUs), but the Docker engine has no \"nvidia\" runtime"), err.Error())
	dockergate.AssertNoContainer(t, id)
}

package load

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVLLMTargetUsesTheContainerStarter(t *testing.T) {
	var got ContainerRequest
	stopped := 0
	starter := ContainerStarterFunc(func(_ context.Context, req ContainerRequest) (StartedContainer, error) {
		got = req
		return StartedContainer{URL: "http://127.0.0.1:1234", Model: "served", Stop: func() error { stopped++; return nil }}, nil
	})
	tg, err := StartTarget(context.Background(), TargetSpec{Target: TargetVLLM, Model: "org/model", VLLMImage: "img:tag",
		APIKey: "sk-key", Container: starter})
	require.NoError(t, err)
	assert.Equal(t, ContainerRequest{Image: "img:tag", Model: "org/model", DevMode: true}, got,
		"dev mode on, so that the prefix cache can be reset")
	assert.Equal(t, TargetVLLM, tg.Kind)
	assert.Equal(t, "http://127.0.0.1:1234", tg.URL)
	assert.Equal(t, "served", tg.Model)
	assert.Equal(t, "sk-key", tg.apiKey)
	require.NoError(t, tg.Close())
	require.NoError(t, tg.Close())
	assert.Equal(t, 1, stopped, "Close stops the container once")
}

func TestVLLMTargetModelFallsBackToTheServedOne(t *testing.T) {
	starter := ContainerStarterFunc(func(context.Context, ContainerRequest) (StartedContainer, error) {
		return StartedContainer{URL: "http://127.0.0.1:1"}, nil
	})
	tg, err := StartTarget(context.Background(), TargetSpec{Target: TargetVLLM, Model: "m", VLLMImage: "i", Container: starter})
	require.NoError(t, err)
	assert.Equal(t, "m", tg.Model)
	assert.NoError(t, tg.Close(), "a starter without Stop leaves nothing to stop")
}

func TestVLLMTargetErrors(t *testing.T) {
	_, err := StartTarget(context.Background(), TargetSpec{Target: TargetVLLM, Model: "m", VLLMImage: "i"})
	assert.ErrorContains(t, err, "the vllm target has no container starter")

	boom := errors.New("container exited with code 3")
	failing := ContainerStarterFunc(func(context.Context, ContainerRequest) (StartedContainer, error) {
		return StartedContainer{}, boom
	})
	_, err = StartTarget(context.Background(), TargetSpec{Target: TargetVLLM, Model: "m", VLLMImage: "img:tag", Container: failing})
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "start vllm target from img:tag")

	t.Setenv(EnvModel, "")
	_, err = StartTarget(context.Background(), TargetSpec{Target: TargetVLLM, Container: failing})
	assert.ErrorContains(t, err, "needs a model")
}

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
	tg, err := ContainerTarget{Starter: starter, Image: "img:tag", Model: "org/model", APIKey: "sk-key"}.Start(context.Background())
	require.NoError(t, err)
	assert.Equal(t, ContainerRequest{Image: "img:tag", Model: "org/model", DevMode: true}, got,
		"dev mode on, so that the prefix cache can be reset")
	assert.Equal(t, KindVLLM, tg.Kind)
	assert.Equal(t, "http://127.0.0.1:1234", tg.URL)
	assert.Equal(t, "served", tg.Model)
	assert.Equal(t, "sk-key", tg.APIKey)
	require.NoError(t, tg.Close())
	require.NoError(t, tg.Close())
	assert.Equal(t, 1, stopped, "Close stops the container once")
}

func TestVLLMTargetModelFallsBackToTheServedOne(t *testing.T) {
	starter := ContainerStarterFunc(func(context.Context, ContainerRequest) (StartedContainer, error) {
		return StartedContainer{URL: "http://127.0.0.1:1"}, nil
	})
	tg, err := ContainerTarget{Starter: starter, Image: "i", Model: "m"}.Start(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "m", tg.Model)
	assert.NoError(t, tg.Close(), "a starter without Stop leaves nothing to stop")
}

func TestVLLMTargetErrors(t *testing.T) {
	_, err := ContainerTarget{Image: "i", Model: "m"}.Start(context.Background())
	assert.ErrorContains(t, err, "the vllm target has no container starter")

	boom := errors.New("container exited with code 3")
	failing := ContainerStarterFunc(func(context.Context, ContainerRequest) (StartedContainer, error) {
		return StartedContainer{}, boom
	})
	_, err = ContainerTarget{Starter: failing, Image: "img:tag", Model: "m"}.Start(context.Background())
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "start vllm target from img:tag")

	_, err = ContainerTarget{Starter: failing}.Start(context.Background())
	assert.ErrorContains(t, err, "needs a model")
}

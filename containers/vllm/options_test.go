package vllm

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"

	"github.com/llmslo/llmslo/containers/vllm/serve"
	"github.com/llmslo/llmslo/internal/testkit"
)

// settingsOf applies this package's options as Run does.
func settingsOf(t *testing.T, opts ...Option) serve.Settings {
	t.Helper()
	s := serve.Defaults()
	for _, o := range opts {
		require.NoError(t, o(&s))
	}
	return s
}

func TestRequest(t *testing.T) {
	dir := t.TempDir()
	s := settingsOf(t, WithModel("m"), WithGPUs(AllGPUs), WithHFCache(dir), WithStartupTimeout(90*time.Second), WithDevMode())
	req := request(&s, "vllm/vllm-openai:latest", testkit.NoEnv)

	assert.Equal(t, "vllm/vllm-openai:latest", req.Image)
	assert.Equal(t, []string{"8000/tcp"}, req.ExposedPorts)
	assert.Equal(t, s.Command(), req.Cmd)
	assert.Equal(t, map[string]string{"VLLM_SERVER_DEV_MODE": "1"}, req.Env)
	assert.True(t, req.Started)

	ph, ok := req.WaitingFor.(onPublishedHost)
	require.True(t, ok, "wait strategy is %T", req.WaitingFor)
	hw := ph.inner
	assert.Equal(t, "/health", hw.Path)
	assert.Equal(t, "8000/tcp", hw.Port.String())
	require.NotNil(t, hw.Timeout())
	assert.Equal(t, 90*time.Second, *hw.Timeout())
	assert.True(t, hw.StatusCodeMatcher(200))
	assert.False(t, hw.StatusCodeMatcher(503))

	var hc container.HostConfig
	req.HostConfigModifier(&hc)
	assert.Equal(t, container.IpcMode("host"), hc.IpcMode)
	assert.Equal(t, []string{dir + ":/root/.cache/huggingface"}, hc.Binds)
	assert.Equal(t, []container.DeviceRequest{{Driver: "nvidia", Count: -1, Capabilities: [][]string{{"gpu"}}}}, hc.DeviceRequests)
}

// Run refuses bad input before it talks to Docker at all: these pass with
// DOCKER_HOST pointing nowhere.
func TestRunRejectsBeforeDocker(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	ctx := context.Background()
	tests := []struct {
		name string
		img  string
		opts []testcontainers.ContainerCustomizer
		want string
	}{
		{"no image", "", []testcontainers.ContainerCustomizer{WithModel("m")}, "vllm: no image given"},
		{"no model", "img", nil, "vllm: no model given: use WithModel"},
		{"bad option", "img", []testcontainers.ContainerCustomizer{WithModel("m"), WithGPUs(0)}, "vllm: WithGPUs: 0 is not a GPU count (use a positive number or AllGPUs)"},
		{
			"failing generic option, redacted",
			"img",
			[]testcontainers.ContainerCustomizer{
				WithModel("m"), WithHFToken("hf_secret_value"),
				testcontainers.CustomizeRequestOption(func(*testcontainers.GenericContainerRequest) error {
					return errors.New("bad customizer saw hf_secret_value")
				}),
			},
			"vllm: customize: bad customizer saw [REDACTED]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctr, err := Run(ctx, tt.img, tt.opts...)
			assert.Nil(t, ctr)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestOptionIsACustomizer(t *testing.T) {
	var c testcontainers.ContainerCustomizer = WithModel("m")
	var req testcontainers.GenericContainerRequest
	require.NoError(t, c.Customize(&req))
	assert.Empty(t, req.Image, "an Option changes nothing through Customize")
}

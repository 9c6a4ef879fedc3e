package vllm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"
)

func apply(t *testing.T, opts ...Option) settings {
	t.Helper()
	s := defaultSettings()
	for _, o := range opts {
		require.NoError(t, o(&s))
	}
	return s
}

func noEnv(string) (string, bool) { return "", false }

func TestCommand(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
		want []string
	}{
		{
			name: "model only",
			opts: []Option{WithModel("Qwen/Qwen3-0.6B")},
			want: []string{"--model", "Qwen/Qwen3-0.6B", "--host", "0.0.0.0", "--port", "8000"},
		},
		{
			name: "served names and extra args, in the order given",
			opts: []Option{
				WithModel("m"),
				WithVLLMArgs("--max-num-seqs", "64"),
				WithServedModelName("a", "b"),
				WithVLLMArgs("--block-size=16", "--enable-prefix-caching"),
			},
			want: []string{"--model", "m", "--served-model-name", "a", "b", "--host", "0.0.0.0", "--port", "8000",
				"--max-num-seqs", "64", "--block-size=16", "--enable-prefix-caching"},
		},
		{
			name: "a later WithServedModelName replaces an earlier one",
			opts: []Option{WithModel("m"), WithServedModelName("a"), WithServedModelName("b")},
			want: []string{"--model", "m", "--served-model-name", "b", "--host", "0.0.0.0", "--port", "8000"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := apply(t, tt.opts...)
			assert.Equal(t, tt.want, s.command())
		})
	}
}

func TestServedModel(t *testing.T) {
	assert.Equal(t, "org/model", (&settings{model: "org/model"}).servedModel())
	s := apply(t, WithModel("org/model"), WithServedModelName("short", "alias"))
	assert.Equal(t, "short", s.servedModel())
}

func TestOptionErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	tests := []struct {
		name string
		opt  Option
		want string
	}{
		{"empty model", WithModel(" "), "WithModel: the model name is empty"},
		{"no served name", WithServedModelName(), "WithServedModelName: no name given"},
		{"empty served name", WithServedModelName("a", ""), "WithServedModelName: name 2 is empty"},
		{"owned --port", WithVLLMArgs("--max-num-seqs", "8", "--port", "9000"), "--port is set by this package"},
		{"owned --port=", WithVLLMArgs("--port=9000"), "--port is set by this package"},
		{"owned --host", WithVLLMArgs("--host=::"), "--host is set by this package"},
		{"owned --model", WithVLLMArgs("--model", "x"), "--model is set by this package"},
		{"owned --served-model-name", WithVLLMArgs("--served-model-name", "x"), "--served-model-name is set by this package"},
		{"bad env name", WithEnv(map[string]string{"A=B": "c"}), `WithEnv: invalid variable name "A=B"`},
		{"empty env name", WithEnv(map[string]string{"": "c"}), `WithEnv: invalid variable name ""`},
		{"zero GPUs", WithGPUs(0), "WithGPUs: 0 is not a GPU count"},
		{"negative GPUs", WithGPUs(-2), "WithGPUs: -2 is not a GPU count"},
		{"no cache dir", WithHFCache(""), "WithHFCache: the directory is empty"},
		{"missing cache dir", WithHFCache(filepath.Join(t.TempDir(), "nope")), "no such file or directory"},
		{"cache is a file", WithHFCache(file), "is not a directory"},
		{"zero timeout", WithStartupTimeout(0), "WithStartupTimeout: 0s is not a positive duration"},
		{"negative tail", WithLogTail(-1), "WithLogTail: -1 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := defaultSettings()
			err := tt.opt(&s)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestVLLMArgsAcceptsLookalikes(t *testing.T) {
	// Only the exact flags are owned: vLLM has others that start alike.
	s := apply(t, WithModel("m"), WithVLLMArgs("--model-impl", "vllm", "--port-range", "x", "--hostname", "y"))
	assert.Equal(t, []string{"--model-impl", "vllm", "--port-range", "x", "--hostname", "y"}, s.args)
}

func TestEnvironment(t *testing.T) {
	fromProcess := func(k string) (string, bool) {
		if k == "HF_TOKEN" {
			return "hf_from_process", true
		}
		return "", false
	}
	tests := []struct {
		name   string
		opts   []Option
		lookup func(string) (string, bool)
		want   map[string]string
	}{
		{"nothing set", nil, noEnv, map[string]string{}},
		{"token from the process", nil, fromProcess, map[string]string{"HF_TOKEN": "hf_from_process"}},
		{"option wins over the process", []Option{WithHFToken("hf_opt")}, fromProcess, map[string]string{"HF_TOKEN": "hf_opt"}},
		{"empty option passes none", []Option{WithHFToken("")}, fromProcess, map[string]string{}},
		{"dev mode", []Option{WithDevMode()}, noEnv, map[string]string{"VLLM_SERVER_DEV_MODE": "1"}},
		{
			"user variables merge",
			[]Option{WithEnv(map[string]string{"A": "1"}), WithEnv(map[string]string{"B": "2", "A": "3"})},
			noEnv,
			map[string]string{"A": "3", "B": "2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := apply(t, tt.opts...)
			assert.Equal(t, tt.want, s.environment(tt.lookup))
		})
	}
}

func TestRequest(t *testing.T) {
	dir := t.TempDir()
	s := apply(t, WithModel("m"), WithGPUs(AllGPUs), WithHFCache(dir), WithStartupTimeout(90*time.Second), WithDevMode())
	req := s.request("vllm/vllm-openai:latest", noEnv)

	assert.Equal(t, "vllm/vllm-openai:latest", req.Image)
	assert.Equal(t, []string{"8000/tcp"}, req.ExposedPorts)
	assert.Equal(t, s.command(), req.Cmd)
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

func TestRequestWithoutGPUsOrCache(t *testing.T) {
	s := apply(t, WithModel("m"), WithGPUs(2))
	var hc container.HostConfig
	s.request("img", noEnv).HostConfigModifier(&hc)
	assert.Empty(t, hc.Binds)
	require.Len(t, hc.DeviceRequests, 1)
	assert.Equal(t, 2, hc.DeviceRequests[0].Count)

	s = apply(t, WithModel("m"))
	hc = container.HostConfig{}
	s.request("img", noEnv).HostConfigModifier(&hc)
	assert.Empty(t, hc.DeviceRequests)
	assert.Empty(t, hc.Binds)
}

func TestDefaults(t *testing.T) {
	s := defaultSettings()
	assert.Equal(t, 15*time.Minute, s.startupTimeout)
	assert.Equal(t, 50, s.logTail)
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

func TestCheckGPURuntime(t *testing.T) {
	ctx := context.Background()
	with := func(names ...string) runtimesFunc {
		return func(context.Context) ([]string, error) { return names, nil }
	}
	require.NoError(t, checkGPURuntime(ctx, with("io.containerd.runc.v2", "nvidia", "runc")))

	err := checkGPURuntime(ctx, with("io.containerd.runc.v2", "runc"))
	require.ErrorIs(t, err, ErrNoGPU)
	assert.Contains(t, err.Error(), `no "nvidia" runtime (it has: io.containerd.runc.v2, runc)`)
	assert.Contains(t, err.Error(), "NVIDIA Container Toolkit")

	down := errors.New("engine down")
	err = checkGPURuntime(ctx, func(context.Context) ([]string, error) { return nil, down })
	require.ErrorIs(t, err, down)
	assert.False(t, errors.Is(err, ErrNoGPU))
	assert.True(t, strings.HasPrefix(err.Error(), "vllm: GPUs were asked for"))
}

func TestOptionIsACustomizer(t *testing.T) {
	var c testcontainers.ContainerCustomizer = WithModel("m")
	var req testcontainers.GenericContainerRequest
	require.NoError(t, c.Customize(&req))
	assert.Empty(t, req.Image, "an Option changes nothing through Customize")
}

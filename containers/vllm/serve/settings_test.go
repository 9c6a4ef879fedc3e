package serve

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/testkit"
)

func apply(t *testing.T, opts ...Option) Settings {
	t.Helper()
	s := Defaults()
	for _, o := range opts {
		require.NoError(t, o(&s))
	}
	return s
}

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
			assert.Equal(t, tt.want, s.Command())
		})
	}
}

func TestServedModel(t *testing.T) {
	assert.Equal(t, "org/model", (&Settings{model: "org/model"}).ServedModel())
	s := apply(t, WithModel("org/model"), WithServedModelName("short", "alias"))
	assert.Equal(t, "short", s.ServedModel())
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
			s := Defaults()
			err := tt.opt(&s)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestVLLMArgsAcceptsLookalikes(t *testing.T) {
	// Only the exact flags are owned: vLLM has others that start alike.
	s := apply(t, WithModel("m"), WithVLLMArgs("--model-impl", "vllm", "--port-range", "x", "--hostname", "y"))
	assert.Equal(t, []string{"--model-impl", "vllm", "--port-range", "x", "--hostname", "y"}, s.Command()[6:])
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
		{"nothing set", nil, testkit.NoEnv, map[string]string{}},
		{"token from the process", nil, fromProcess, map[string]string{"HF_TOKEN": "hf_from_process"}},
		{"option wins over the process", []Option{WithHFToken("hf_opt")}, fromProcess, map[string]string{"HF_TOKEN": "hf_opt"}},
		{"empty option passes none", []Option{WithHFToken("")}, fromProcess, map[string]string{}},
		{"dev mode", []Option{WithDevMode()}, testkit.NoEnv, map[string]string{"VLLM_SERVER_DEV_MODE": "1"}},
		{
			"user variables merge",
			[]Option{WithEnv(map[string]string{"A": "1"}), WithEnv(map[string]string{"B": "2", "A": "3"})},
			testkit.NoEnv,
			map[string]string{"A": "3", "B": "2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := apply(t, tt.opts...)
			assert.Equal(t, tt.want, s.Environment(tt.lookup))
		})
	}
}

func TestDefaults(t *testing.T) {
	s := Defaults()
	assert.Equal(t, 15*time.Minute, s.StartupTimeout())
	assert.Equal(t, 50, s.LogTail())
}

func TestNewChecksTheModel(t *testing.T) {
	_, err := New(WithDevMode())
	assert.EqualError(t, err, "no model given: use WithModel")
	_, err = New(WithModel("m"), WithGPUs(0))
	assert.ErrorContains(t, err, "WithGPUs: 0 is not a GPU count")
	s, err := New(WithModel("m"))
	require.NoError(t, err)
	assert.Equal(t, "m", s.Model())
	assert.Equal(t, 0, s.GPUs())
}

func TestApplyHostConfig(t *testing.T) {
	dir := t.TempDir()
	s := apply(t, WithModel("m"), WithGPUs(AllGPUs), WithHFCache(dir))
	var hc container.HostConfig
	s.ApplyHostConfig(&hc)
	assert.Equal(t, container.IpcMode("host"), hc.IpcMode)
	assert.Equal(t, []string{dir + ":/root/.cache/huggingface"}, hc.Binds)
	assert.Equal(t, []container.DeviceRequest{{Driver: "nvidia", Count: -1, Capabilities: [][]string{{"gpu"}}}}, hc.DeviceRequests)

	s = apply(t, WithModel("m"), WithGPUs(2))
	hc = container.HostConfig{}
	s.ApplyHostConfig(&hc)
	assert.Empty(t, hc.Binds)
	require.Len(t, hc.DeviceRequests, 1)
	assert.Equal(t, 2, hc.DeviceRequests[0].Count)

	s = apply(t, WithModel("m"))
	hc = container.HostConfig{}
	s.ApplyHostConfig(&hc)
	assert.Empty(t, hc.DeviceRequests)
	assert.Empty(t, hc.Binds)
}

func TestLabels(t *testing.T) {
	s := apply(t, WithModel("m"), WithLabels(map[string]string{"a": "1"}), WithLabels(map[string]string{"b": "2"}))
	got := s.Labels()
	assert.Equal(t, map[string]string{"a": "1", "b": "2"}, got)
	got["c"] = "3"
	assert.Len(t, s.Labels(), 2, "Labels returns a copy")
	assert.ErrorContains(t, WithLabels(map[string]string{"a b": "1"})(&s), `WithLabels: invalid label name "a b"`)

	var zero Settings // the options fill maps they find nil
	require.NoError(t, WithEnv(map[string]string{"A": "1"})(&zero))
	require.NoError(t, WithLabels(map[string]string{"a": "1"})(&zero))
	assert.Equal(t, map[string]string{"A": "1"}, zero.Environment(testkit.NoEnv))
}

package serve

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
)

const (
	// DefaultStartupTimeout allows a real vLLM to download and load weights.
	DefaultStartupTimeout = 15 * time.Minute
	// DefaultLogTail is how many of the container's last log lines a start
	// failure's error carries.
	DefaultLogTail = 50
	// ContainerPort is the port the server listens on inside the container.
	ContainerPort = PortNumber + "/tcp"
	// PortNumber is ContainerPort without its protocol.
	PortNumber = "8000"
	// HealthPath answers 200 once the server is ready (vLLM and the simulator).
	HealthPath = "/health"
	// HFCacheDir is where WithHFCache mounts the host's cache.
	HFCacheDir = "/root/.cache/huggingface"
	// AllGPUs asks WithGPUs for every GPU the engine has (Docker's --gpus all).
	AllGPUs = -1

	hfTokenEnv = "HF_TOKEN"
	devModeEnv = "VLLM_SERVER_DEV_MODE"
)

// Option changes Settings; it fails on a value the container could not use.
type Option func(*Settings) error

// Settings is what the Options gather. Its zero value has no startup
// timeout: start from Defaults or New.
type Settings struct {
	model          string
	servedNames    []string
	args           []string
	env            map[string]string
	labels         map[string]string
	gpus           int // 0: none; AllGPUs: all; n > 0: n devices
	hfCache        string
	hfToken        string
	hfTokenSet     bool
	devMode        bool
	startupTimeout time.Duration
	logTail        int
}

// Defaults returns Settings with no model and the default startup timeout
// and log tail.
func Defaults() Settings {
	return Settings{
		startupTimeout: DefaultStartupTimeout,
		logTail:        DefaultLogTail,
	}
}

// New applies opts to Defaults and checks the result.
func New(opts ...Option) (Settings, error) {
	s := Defaults()
	for _, o := range opts {
		if err := o(&s); err != nil {
			return Settings{}, err
		}
	}
	return s, s.Check()
}

// Check fails when the settings cannot start a server: no model was given.
func (s *Settings) Check() error {
	if s.model == "" {
		return errors.New("no model given: use WithModel")
	}
	return nil
}

// WithModel sets the model vLLM serves (a Hugging Face repository such as
// "Qwen/Qwen3-0.6B", or a path inside the container). It is required.
func WithModel(model string) Option {
	return func(s *Settings) error {
		if strings.TrimSpace(model) == "" {
			return errors.New("WithModel: the model name is empty")
		}
		s.model = model
		return nil
	}
}

// WithServedModelName sets the names clients put in a request's "model"
// field (vLLM's --served-model-name). The first one is what ServedModel
// returns.
func WithServedModelName(names ...string) Option {
	return func(s *Settings) error {
		if len(names) == 0 {
			return errors.New("WithServedModelName: no name given")
		}
		for i, n := range names {
			if strings.TrimSpace(n) == "" {
				return fmt.Errorf("WithServedModelName: name %d is empty", i+1)
			}
		}
		s.servedNames = append([]string(nil), names...)
		return nil
	}
}

// WithVLLMArgs appends arguments to vLLM's serve command line, for example
// WithVLLMArgs("--max-num-seqs", "64", "--block-size", "16"). The flags this
// package owns (--model, --served-model-name, --host, --port) are refused:
// use WithModel and WithServedModelName; host and port are fixed so that the
// health check can find the server.
func WithVLLMArgs(args ...string) Option {
	return func(s *Settings) error {
		if err := checkOwnedFlags(args); err != nil {
			return fmt.Errorf("WithVLLMArgs: %w", err)
		}
		s.args = append(s.args, args...)
		return nil
	}
}

// WithEnv adds environment variables to the container. Values of variables
// whose names look like credentials (HF_TOKEN, *_API_KEY, *TOKEN*, *SECRET*,
// *PASSWORD*) are redacted from errors and logs.
func WithEnv(env map[string]string) Option {
	return func(s *Settings) error {
		for k := range env {
			if !validName(k) {
				return fmt.Errorf("WithEnv: invalid variable name %q", k)
			}
		}
		if s.env == nil {
			s.env = map[string]string{}
		}
		maps.Copy(s.env, env)
		return nil
	}
}

// WithLabels adds labels to the container, for finding it later (docker ps
// --filter label=K=V).
func WithLabels(labels map[string]string) Option {
	return func(s *Settings) error {
		for k := range labels {
			if !validName(k) {
				return fmt.Errorf("WithLabels: invalid label name %q", k)
			}
		}
		if s.labels == nil {
			s.labels = map[string]string{}
		}
		maps.Copy(s.labels, labels)
		return nil
	}
}

func validName(k string) bool { return k != "" && !strings.ContainsAny(k, "= \t\n") }

// WithGPUs requests n GPUs (or AllGPUs) through Docker's NVIDIA device
// requests. Starting fails before anything is created when the engine has
// no "nvidia" runtime (see CheckGPURuntime).
func WithGPUs(n int) Option {
	return func(s *Settings) error {
		if n == 0 || n < AllGPUs {
			return fmt.Errorf("WithGPUs: %d is not a GPU count (use a positive number or AllGPUs)", n)
		}
		s.gpus = n
		return nil
	}
}

// WithHFCache bind-mounts hostDir at /root/.cache/huggingface, so that
// downloaded weights survive the container. hostDir must be an existing
// directory.
func WithHFCache(hostDir string) Option {
	return func(s *Settings) error {
		if hostDir == "" {
			return errors.New("WithHFCache: the directory is empty")
		}
		abs, err := filepath.Abs(hostDir)
		if err != nil {
			return fmt.Errorf("WithHFCache: %w", err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return fmt.Errorf("WithHFCache: %w", err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("WithHFCache: %s is not a directory", abs)
		}
		s.hfCache = abs
		return nil
	}
}

// WithHFToken passes a Hugging Face token to the container as HF_TOKEN.
// Without this option the HF_TOKEN of the calling process, if any, is passed.
// An empty token passes none. The token never appears in errors or logs.
func WithHFToken(token string) Option {
	return func(s *Settings) error {
		s.hfToken = token
		s.hfTokenSet = true
		return nil
	}
}

// WithDevMode sets VLLM_SERVER_DEV_MODE=1, which enables vLLM's development
// endpoints such as POST /reset_prefix_cache (needed to measure with a cold
// prefix cache).
func WithDevMode() Option {
	return func(s *Settings) error {
		s.devMode = true
		return nil
	}
}

// WithStartupTimeout bounds how long starting waits for GET /health to
// answer 200. The default, DefaultStartupTimeout, allows for downloading and
// loading weights.
func WithStartupTimeout(d time.Duration) Option {
	return func(s *Settings) error {
		if d <= 0 {
			return fmt.Errorf("WithStartupTimeout: %v is not a positive duration", d)
		}
		s.startupTimeout = d
		return nil
	}
}

// WithLogTail sets how many of the container's last log lines a start
// failure's error carries (DefaultLogTail by default).
func WithLogTail(lines int) Option {
	return func(s *Settings) error {
		if lines < 0 {
			return fmt.Errorf("WithLogTail: %d is negative", lines)
		}
		s.logTail = lines
		return nil
	}
}

// ownedFlags are set by this package and refused in WithVLLMArgs.
var ownedFlags = []string{"--model", "--served-model-name", "--host", "--port"}

func checkOwnedFlags(args []string) error {
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		for _, f := range ownedFlags {
			if name == f {
				return fmt.Errorf("%s is set by this package; use the matching option instead", f)
			}
		}
	}
	return nil
}

// Command is the container's command line: the arguments after the image's
// entrypoint (vllm serve, or the legacy api_server module; both take
// --model, only the first a positional model). The server listens on every
// interface of the container, so that the published port reaches it.
func (s *Settings) Command() []string {
	cmd := []string{"--model", s.model}
	if len(s.servedNames) > 0 {
		cmd = append(cmd, "--served-model-name")
		cmd = append(cmd, s.servedNames...)
	}
	cmd = append(cmd, "--host", "0.0.0.0", "--port", PortNumber)
	return append(cmd, s.args...)
}

// Environment is the container's environment. lookupEnv reads the calling
// process's environment (os.LookupEnv outside tests), from which HF_TOKEN is
// taken unless WithHFToken was given.
func (s *Settings) Environment(lookupEnv func(string) (string, bool)) map[string]string {
	env := make(map[string]string, len(s.env)+2)
	maps.Copy(env, s.env)
	token := s.hfToken
	if !s.hfTokenSet {
		token, _ = lookupEnv(hfTokenEnv)
	}
	if token != "" {
		env[hfTokenEnv] = token
	}
	if s.devMode {
		env[devModeEnv] = "1"
	}
	return env
}

// ApplyHostConfig sets what the server needs of the host: shared memory,
// the weights cache, GPUs.
func (s *Settings) ApplyHostConfig(hc *container.HostConfig) {
	// vLLM's workers share tensors through /dev/shm; the project's Docker
	// guide runs it with --ipc=host.
	hc.IpcMode = "host"
	if s.hfCache != "" {
		hc.Binds = append(hc.Binds, s.hfCache+":"+HFCacheDir)
	}
	if s.gpus != 0 {
		hc.DeviceRequests = append(hc.DeviceRequests, container.DeviceRequest{
			Driver:       "nvidia",
			Count:        s.gpus,
			Capabilities: [][]string{{"gpu"}},
		})
	}
}

// Model is the model the server loads.
func (s *Settings) Model() string { return s.model }

// ServedModel is the name clients put in a request's "model" field: the
// first served model name if one was set, the model otherwise.
func (s *Settings) ServedModel() string {
	if len(s.servedNames) > 0 {
		return s.servedNames[0]
	}
	return s.model
}

// GPUs is the number of GPUs asked for: 0 for none, AllGPUs for all.
func (s *Settings) GPUs() int { return s.gpus }

// StartupTimeout bounds the wait for GET /health to answer 200.
func (s *Settings) StartupTimeout() time.Duration { return s.startupTimeout }

// LogTail is how many log lines a start failure carries.
func (s *Settings) LogTail() int { return s.logTail }

// Labels returns a copy of the container's labels.
func (s *Settings) Labels() map[string]string { return maps.Clone(s.labels) }

package vllm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"
)

// AllGPUs asks WithGPUs for every GPU the engine has (Docker's --gpus all).
const AllGPUs = -1

// Option configures the vLLM server. It also satisfies
// testcontainers.ContainerCustomizer, so Options and generic testcontainers
// options can be mixed in one Run call; Run applies the Options first and the
// generic ones after, so the latter can override what the former set.
type Option func(*settings) error

// Customize does nothing: Run applies an Option to its settings before it
// builds the container request.
func (o Option) Customize(*testcontainers.GenericContainerRequest) error { return nil }

// settings is what the Options gather; Run turns it into a container request.
type settings struct {
	model          string
	servedNames    []string
	args           []string
	env            map[string]string
	gpus           int // 0: none; AllGPUs: all; n > 0: n devices
	hfCache        string
	hfToken        string
	hfTokenSet     bool
	devMode        bool
	startupTimeout time.Duration
	logTail        int
}

func defaultSettings() settings {
	return settings{
		env:            map[string]string{},
		startupTimeout: DefaultStartupTimeout,
		logTail:        DefaultLogTail,
	}
}

// WithModel sets the model vLLM serves (a Hugging Face repository such as
// "Qwen/Qwen3-0.6B", or a path inside the container). It is required.
func WithModel(model string) Option {
	return func(s *settings) error {
		if strings.TrimSpace(model) == "" {
			return errors.New("WithModel: the model name is empty")
		}
		s.model = model
		return nil
	}
}

// WithServedModelName sets the names clients put in a request's "model"
// field (vLLM's --served-model-name). The first one is what Model returns.
func WithServedModelName(names ...string) Option {
	return func(s *settings) error {
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
// health check and BaseURL can find the server.
func WithVLLMArgs(args ...string) Option {
	return func(s *settings) error {
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
	return func(s *settings) error {
		for k, v := range env {
			if k == "" || strings.ContainsAny(k, "= \t\n") {
				return fmt.Errorf("WithEnv: invalid variable name %q", k)
			}
			s.env[k] = v
		}
		return nil
	}
}

// WithGPUs requests n GPUs (or AllGPUs) through Docker's NVIDIA device
// requests. Run fails before creating anything when the engine has no
// "nvidia" runtime.
func WithGPUs(n int) Option {
	return func(s *settings) error {
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
	return func(s *settings) error {
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
	return func(s *settings) error {
		s.hfToken = token
		s.hfTokenSet = true
		return nil
	}
}

// WithDevMode sets VLLM_SERVER_DEV_MODE=1, which enables vLLM's development
// endpoints such as POST /reset_prefix_cache (needed to measure with a cold
// prefix cache).
func WithDevMode() Option {
	return func(s *settings) error {
		s.devMode = true
		return nil
	}
}

// WithStartupTimeout bounds how long Run waits for GET /health to answer 200.
// The default, DefaultStartupTimeout, allows for downloading and loading
// weights.
func WithStartupTimeout(d time.Duration) Option {
	return func(s *settings) error {
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
	return func(s *settings) error {
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

// command is the container's command line: the arguments after the image's
// entrypoint (vllm serve, or the legacy api_server module).
func (s *settings) command() []string {
	cmd := []string{"--model", s.model}
	if len(s.servedNames) > 0 {
		cmd = append(cmd, "--served-model-name")
		cmd = append(cmd, s.servedNames...)
	}
	cmd = append(cmd, "--host", "0.0.0.0", "--port", containerPortNumber)
	return append(cmd, s.args...)
}

// environment is the container's environment. lookupEnv reads the calling
// process's environment (os.LookupEnv outside tests).
func (s *settings) environment(lookupEnv func(string) (string, bool)) map[string]string {
	env := make(map[string]string, len(s.env)+2)
	for k, v := range s.env {
		env[k] = v
	}
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

// servedModel is the name clients use in requests.
func (s *settings) servedModel() string {
	if len(s.servedNames) > 0 {
		return s.servedNames[0]
	}
	return s.model
}

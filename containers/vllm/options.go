package vllm

import (
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/llmslo/llmslo/containers/vllm/serve"
)

const (
	// DefaultStartupTimeout allows a real vLLM to download and load weights.
	DefaultStartupTimeout = serve.DefaultStartupTimeout
	// DefaultLogTail is how many of the container's last log lines a start
	// failure's error carries.
	DefaultLogTail = serve.DefaultLogTail
	// ContainerPort is the port the server listens on inside the container.
	ContainerPort = serve.ContainerPort
	// HFCacheDir is where WithHFCache mounts the host's cache.
	HFCacheDir = serve.HFCacheDir
	// AllGPUs asks WithGPUs for every GPU the engine has (Docker's --gpus all).
	AllGPUs = serve.AllGPUs
)

// Option configures the vLLM server (see package serve, which holds what
// the options gather). It also satisfies testcontainers.ContainerCustomizer,
// so Options and generic testcontainers options can be mixed in one Run
// call; Run applies the Options first and the generic ones after, so the
// latter can override what the former set.
type Option func(*serve.Settings) error

// Customize does nothing: Run applies an Option to its settings before it
// builds the container request.
func (o Option) Customize(*testcontainers.GenericContainerRequest) error { return nil }

// WithModel sets the model vLLM serves (a Hugging Face repository such as
// "Qwen/Qwen3-0.6B", or a path inside the container). It is required.
func WithModel(model string) Option { return Option(serve.WithModel(model)) }

// WithServedModelName sets the names clients put in a request's "model"
// field (vLLM's --served-model-name). The first one is what Model returns.
func WithServedModelName(names ...string) Option {
	return Option(serve.WithServedModelName(names...))
}

// WithVLLMArgs appends arguments to vLLM's serve command line, for example
// WithVLLMArgs("--max-num-seqs", "64", "--block-size", "16"). The flags this
// package owns (--model, --served-model-name, --host, --port) are refused:
// use WithModel and WithServedModelName; host and port are fixed so that the
// health check and BaseURL can find the server.
func WithVLLMArgs(args ...string) Option { return Option(serve.WithVLLMArgs(args...)) }

// WithEnv adds environment variables to the container. Values of variables
// whose names look like credentials (HF_TOKEN, *_API_KEY, *TOKEN*, *SECRET*,
// *PASSWORD*) are redacted from errors and logs.
func WithEnv(env map[string]string) Option { return Option(serve.WithEnv(env)) }

// WithGPUs requests n GPUs (or AllGPUs) through Docker's NVIDIA device
// requests. Run fails before creating anything when the engine has no
// "nvidia" runtime.
func WithGPUs(n int) Option { return Option(serve.WithGPUs(n)) }

// WithHFCache bind-mounts hostDir at /root/.cache/huggingface, so that
// downloaded weights survive the container. hostDir must be an existing
// directory.
func WithHFCache(hostDir string) Option { return Option(serve.WithHFCache(hostDir)) }

// WithHFToken passes a Hugging Face token to the container as HF_TOKEN.
// Without this option the HF_TOKEN of the calling process, if any, is passed.
// An empty token passes none. The token never appears in errors or logs.
func WithHFToken(token string) Option { return Option(serve.WithHFToken(token)) }

// WithDevMode sets VLLM_SERVER_DEV_MODE=1, which enables vLLM's development
// endpoints such as POST /reset_prefix_cache (needed to measure with a cold
// prefix cache).
func WithDevMode() Option { return Option(serve.WithDevMode()) }

// WithStartupTimeout bounds how long Run waits for GET /health to answer 200.
// The default, DefaultStartupTimeout, allows for downloading and loading
// weights.
func WithStartupTimeout(d time.Duration) Option { return Option(serve.WithStartupTimeout(d)) }

// WithLogTail sets how many of the container's last log lines a start
// failure's error carries (DefaultLogTail by default).
func WithLogTail(lines int) Option { return Option(serve.WithLogTail(lines)) }

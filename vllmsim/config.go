package vllmsim

import (
	"fmt"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

// Defaults, those of vLLM serving Llama 3.1 8B on one H100 (DefaultGPU).
const (
	DefaultModel       = engine.DefaultModel // Llama 3.1 8B's shape
	DefaultGPU         = engine.DefaultGPU
	DefaultMaxModelLen = 16384 // DefaultModel's, and an unknown model's: fits the Azure conversation traces (≤ 14050 in + 1000 out)
	// vLLM serve's batch limits on a GPU of at least 70 GiB other than an
	// A100; 256 and 2048 on the others (see Config.batchDefaults).
	DefaultMaxNumSeqs          = 1024
	DefaultMaxNumBatchedTokens = 8192
	DefaultBlockSize           = 16
	// DefaultNumGPUBlocks is the KV cache of a model the simulator does not
	// know, served under a named --profile: 480k tokens, about what
	// Llama-3-8B gets on an H100. A known model's is sized from the GPU's
	// memory.
	DefaultNumGPUBlocks  = 30000
	DefaultEOSMeanTokens = 256
	DefaultVersion       = "0.11.0-llmslo-sim"
	DefaultHost          = "127.0.0.1"
	DefaultPort          = 8000
)

// Config configures a simulated server. The zero value serves the defaults.
type Config struct {
	Model           string // --model
	ServedModelName string // --served-model-name; Model when empty

	MaxModelLen         int // --max-model-len
	MaxNumSeqs          int // --max-num-seqs
	MaxNumBatchedTokens int // --max-num-batched-tokens
	BlockSize           int // --block-size
	NumGPUBlocks        int // --num-gpu-blocks-override

	// DisablePrefixCaching turns prefix caching off
	// (--no-enable-prefix-caching); it is on by default, as in vLLM V1.
	DisablePrefixCaching bool

	// ProfileName names a step profile (--profile); Profile, when its
	// costs are not all zero or its Name is set, is used as given instead.
	// By default the step time is the roofline model of Model on GPU.
	ProfileName string
	Profile     engine.StepProfile

	// The simulated hardware (see hardware.go and docs/simulator.md).
	GPU                   string  // --gpu: a100, h100 (default), h200, b200, l40s, mi300x
	TensorParallelSize    int     // --tensor-parallel-size; 1 when 0
	Quantization          string  // --quantization: fp8, awq, gptq; the checkpoint's own when empty
	KVCacheDType          string  // --kv-cache-dtype: auto (16-bit) or fp8
	GPUMemoryUtilization  float64 // --gpu-memory-utilization; 0.9 when 0
	PerformanceMode       string  // --performance-mode: balanced (default), interactivity, throughput
	DisableChunkedPrefill bool    // --no-enable-chunked-prefill

	// Admission control (admission.go), off when 0: requests in flight,
	// waiting plus running (--max-num-queued-reqs), and prompt tokens of
	// requests still in prefill (--max-num-queued-tokens).
	MaxNumQueuedReqs   int
	MaxNumQueuedTokens int
	// StepTimeScale multiplies every modelled step time (--step-time-scale);
	// 1 when 0.
	StepTimeScale float64
	// Drift makes every step's time follow the wall clock (--drift; see
	// Drift); the zero value keeps it fixed.
	Drift Drift
	// StepJitter makes each step up to that share slower, drawn anew for
	// every step from Seed (--step-jitter): a server's own noise, which two
	// servers of different seeds do not share, as Drift is shared.
	StepJitter float64

	// The API server's time before the engine sees a request, taken one
	// request at a time (frontend.go): FrontendOverhead a request
	// (--frontend-overhead) and FrontendPerToken a prompt token
	// (--frontend-per-token). Left at 0 they are vLLM V1's, or V0's with
	// EngineV0, under the roofline, and none under a named profile, whose
	// fit includes them. NoFrontend (--no-frontend) removes them, as for
	// vLLM's offline LLM class.
	FrontendOverhead time.Duration
	FrontendPerToken time.Duration
	NoFrontend       bool
	// EngineV0 simulates vLLM's V0 engine, that of vLLM 0.6 (--engine-v0):
	// its API server holds the engine while it takes requests in, at
	// V0FrontendOverhead a request, each sequence of a step costs
	// engine.V0SeqCPU under the roofline, and with chunked prefill off
	// every waiting prompt that fits runs before any decode.
	EngineV0 bool

	// AsyncScheduling (--async-scheduling) plans each engine step while
	// the one before it runs, as today's vLLM V1 does unless an option
	// rules it out; NoAsyncScheduling (--no-async-scheduling) turns it off,
	// as in vLLM before it became the default. Left unset, it is on under
	// the roofline (V1) and off with EngineV0 or a named profile, whose fit
	// predates it. See docs/simulator.md, "The first token".
	AsyncScheduling   bool
	NoAsyncScheduling bool
	// The API server's time after the engine, for each step's outputs
	// (--output-overhead) and each request's token in them
	// (--output-per-seq), one step's outputs after another: see
	// engine.Output. Left at 0 they are vLLM V1's under the roofline, and
	// none with NoFrontend, EngineV0 or a named profile.
	OutputOverhead time.Duration
	OutputPerSeq   time.Duration

	// EOSMeanTokens is the mean output length of requests that may stop
	// early (no ignore_eos, no min_tokens); see outputLength.
	EOSMeanTokens int

	// Seed makes early stops and fault draws reproducible.
	Seed int64

	Faults Faults // see faults.go

	// EnablePromptTokensDetails adds "prompt_tokens_details":
	// {"cached_tokens": N} to the final usage
	// (--enable-prompt-tokens-details), as vLLM does.
	EnablePromptTokensDetails bool

	// DevMode serves vLLM's development endpoints, as
	// VLLM_SERVER_DEV_MODE=1 does (--dev-mode): /reset_prefix_cache
	// (reset.go). Off, they are 404s.
	DevMode bool

	// StartupBehavior is what a client meets while the server is loading
	// (Faults.StartupDelay; --startup-behavior): StartupRefuse, a closed
	// port as from today's vLLM, the default, or Startup503, vLLM 0.9's
	// 503 on every endpoint (startup.go).
	StartupBehavior string

	// ErrorFormat is the shape of error answers (--error-format):
	// ErrorFormatOpenAI, vLLM's since 0.10.1 and the default, or
	// ErrorFormatLegacy, the flat object of vLLM 0.10.0 and before.
	ErrorFormat string

	Version string // GET /version

	Host string // --host, for ListenAndServe
	Port int    // --port, for ListenAndServe

	// APIKey, when set, is required as "Authorization: Bearer KEY" on
	// /v1/ paths (--api-key), as vLLM does. It is never printed.
	APIKey Secret

	// IgnoredFlags lists vLLM flags that were accepted but mean nothing to
	// the simulator (dtype, pipeline and data parallelism, logging, …), so
	// that a vLLM command line runs unchanged.
	IgnoredFlags []string
}

// servedName is the model name clients must use.
func (c Config) servedName() string {
	if c.ServedModelName != "" {
		return c.ServedModelName
	}
	return c.Model
}

// withDefaults fills unset fields and checks the result.
func (c Config) withDefaults() (Config, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if c.Model == "" {
		c.Model = DefaultModel
	}
	def(&c.BlockSize, DefaultBlockSize)
	def(&c.EOSMeanTokens, DefaultEOSMeanTokens)
	if c.Version == "" {
		c.Version = DefaultVersion
	}
	if c.Host == "" {
		c.Host = DefaultHost
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"max-model-len", c.MaxModelLen}, {"max-num-seqs", c.MaxNumSeqs},
		{"max-num-batched-tokens", c.MaxNumBatchedTokens}, {"block-size", c.BlockSize},
		{"num-gpu-blocks-override", c.NumGPUBlocks}} {
		if f.v < 0 {
			return c, fmt.Errorf("vllmsim: --%s must be positive, got %d", f.name, f.v)
		}
	}
	if err := c.checkErrorFormat(); err != nil {
		return c, err
	}
	if err := c.checkAdmission(); err != nil {
		return c, err
	}
	if err := c.checkStartup(); err != nil {
		return c, err
	}
	if err := c.checkNoise(); err != nil {
		return c, err
	}
	if err := c.resolveHardware(); err != nil {
		return c, err
	}
	if err := c.resolveFrontend(); err != nil {
		return c, err
	}
	if c.NumGPUBlocks*c.BlockSize < c.MaxModelLen {
		// vLLM refuses to start when one request of max_model_len cannot fit.
		return c, fmt.Errorf("vllmsim: the KV cache (%d blocks of %d tokens = %d tokens) is smaller than --max-model-len %d",
			c.NumGPUBlocks, c.BlockSize, c.NumGPUBlocks*c.BlockSize, c.MaxModelLen)
	}
	f, err := c.Faults.withDefaults()
	if err != nil {
		return c, err
	}
	c.Faults = f
	if c.Port < 0 || c.Port > 65535 {
		return c, fmt.Errorf("vllmsim: --port must be within 0..65535, got %d", c.Port)
	}
	return c, nil
}

// Secret is a value that must never be printed: fmt shows it as
// "[redacted]".
type Secret string

func (Secret) String() string   { return "[redacted]" }
func (Secret) GoString() string { return "[redacted]" }

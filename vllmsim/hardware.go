package vllmsim

import (
	"fmt"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

// DefaultGPUMemoryUtilization is vLLM's default --gpu-memory-utilization.
const DefaultGPUMemoryUtilization = 0.9

const gib = engine.GiB

// Performance modes (--performance-mode).
const (
	PerformanceBalanced      = "balanced"
	PerformanceInteractivity = "interactivity"
	PerformanceThroughput    = "throughput"
)

// batchDefaults fills max_num_batched_tokens and max_num_seqs the user left
// unset as vLLM serve does (_set_default_max_num_seqs_and_batched_tokens_args
// in vllm/engine/arg_utils.py): 8192 and 1024 on GPUs of at least 70 GiB
// other than the A100, 2048 and 256 on the others; both doubled in
// throughput mode; the token budget raised to max_model_len when chunked
// prefill is off, and capped at max_num_seqs × max_model_len; max_num_seqs
// capped at the token budget.
func (c *Config) batchDefaults(g engine.GPU) {
	tokens, seqs := 2048, 256
	if g.LargeBatchDefaults() {
		tokens, seqs = 8192, 1024
	}
	setTokens, setSeqs := c.MaxNumBatchedTokens == 0, c.MaxNumSeqs == 0
	if c.PerformanceMode == PerformanceThroughput {
		tokens, seqs = 2*tokens, 2*seqs
	}
	if setSeqs {
		c.MaxNumSeqs = seqs
	}
	if setTokens {
		if c.DisableChunkedPrefill {
			tokens = max(tokens, c.MaxModelLen)
		}
		c.MaxNumBatchedTokens = min(tokens, c.MaxNumSeqs*c.MaxModelLen)
	}
	if setSeqs {
		c.MaxNumSeqs = min(c.MaxNumSeqs, c.MaxNumBatchedTokens)
	}
}

// resolveHardware fills what depends on the simulated GPU and model: the
// context length, the batch limits, the step-time profile and the KV cache.
// An unknown model is an error unless a step profile is named, for which
// the model is only a label: its KV cache is then DefaultNumGPUBlocks.
func (c *Config) resolveHardware() error {
	c.legacyDefaults()
	if c.GPU == "" {
		c.GPU = DefaultGPU
	}
	g, err := engine.LookupGPU(c.GPU)
	if err != nil {
		return err
	}
	c.GPU = g.Name
	if err := c.resolveScalars(); err != nil {
		return err
	}
	kvBytes, err := engine.KVElementBytes(c.KVCacheDType)
	if err != nil {
		return err
	}
	shape, known, named, err := c.modelShape()
	if err != nil {
		return err
	}
	if err := c.resolveLimits(g, shape, known); err != nil {
		return err
	}
	if err := c.resolveProfile(g, shape, kvBytes, named); err != nil {
		return err
	}
	c.Profile.Scale = c.StepTimeScale
	if c.NumGPUBlocks == 0 {
		return c.sizeKVCache(g, shape, known, kvBytes)
	}
	return nil
}

// legacyDefaults keeps the legacy default server where nothing names the
// hardware, and the limits of a hand-fit profile named without a GPU.
func (c *Config) legacyDefaults() {
	if c.namesNoHardware() {
		// A server that names no model, GPU or profile keeps the hand-fit
		// h100-llama3-8b profile and the limits it was fitted with, so that
		// gates recorded on the default keep their numbers (the roofline's
		// idle TTFT is a third of the published one: docs/simulator.md).
		c.ProfileName = LegacyDefaultProfile
	}
	if engine.HandFit(c.ProfileName) && c.GPU == "" && c.Profile == (engine.StepProfile{}) {
		// A hand-fit profile named without a GPU keeps its limits too: the
		// names stay for reproducibility.
		if c.MaxNumSeqs == 0 {
			c.MaxNumSeqs = legacyMaxNumSeqs
		}
		if c.NumGPUBlocks == 0 {
			c.NumGPUBlocks = legacyNumGPUBlocks
		}
	}
}

// resolveScalars defaults and checks the memory utilization, the step-time
// scale, the tensor parallelism and the performance mode.
func (c *Config) resolveScalars() error {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.GPUMemoryUtilization, DefaultGPUMemoryUtilization)
	def(&c.StepTimeScale, c.Profile.Scale) // a given profile's own scale
	def(&c.StepTimeScale, 1)
	if c.TensorParallelSize == 0 {
		c.TensorParallelSize = 1
	}
	switch {
	case c.TensorParallelSize < 0:
		return fmt.Errorf("vllmsim: --tensor-parallel-size must be positive, got %d", c.TensorParallelSize)
	case c.GPUMemoryUtilization < 0 || c.GPUMemoryUtilization > 1:
		return fmt.Errorf("vllmsim: --gpu-memory-utilization must be within (0, 1], got %g", c.GPUMemoryUtilization)
	case c.StepTimeScale < 0:
		return fmt.Errorf("vllmsim: --step-time-scale must be positive, got %g", c.StepTimeScale)
	}
	switch c.PerformanceMode {
	case "":
		c.PerformanceMode = PerformanceBalanced
	case PerformanceBalanced, PerformanceInteractivity, PerformanceThroughput:
	default:
		return fmt.Errorf("vllmsim: --performance-mode must be balanced, interactivity or throughput, got %q", c.PerformanceMode)
	}
	return nil
}

// modelShape is the served model's shape at its weights' precision. known
// is false for a model the simulator does not know, which is an error
// unless a step profile is named (named true).
func (c *Config) modelShape() (shape engine.ModelShape, known, named bool, err error) {
	shape, shapeErr := engine.LookupModel(c.Model)
	if shapeErr == nil && c.Quantization != "" {
		if shape.WeightBits, err = engine.QuantizationBits(c.Quantization); err != nil {
			return shape, false, false, err
		}
	}
	named = (c.ProfileName != "" && c.ProfileName != engine.DefaultProfile) || c.Profile != (engine.StepProfile{})
	if shapeErr != nil && !named {
		return shape, false, named, shapeErr
	}
	return shape, shapeErr == nil, named, nil
}

// resolveLimits fills the context length (the model's, when known) and the
// batch limits, and checks that a prompt of the context length can run
// when chunked prefill is off.
func (c *Config) resolveLimits(g engine.GPU, shape engine.ModelShape, known bool) error {
	if c.MaxModelLen == 0 {
		c.MaxModelLen = DefaultMaxModelLen
		if known && shape.MaxPositions > 0 {
			c.MaxModelLen = shape.MaxPositions
		}
	}
	c.batchDefaults(g)
	if c.DisableChunkedPrefill && c.MaxNumBatchedTokens < c.MaxModelLen {
		return fmt.Errorf("vllmsim: --max-num-batched-tokens %d is smaller than --max-model-len %d, which chunked prefill "+
			"being off requires (no prompt longer than the budget could run); raise one or lower the other", c.MaxNumBatchedTokens, c.MaxModelLen)
	}
	return nil
}

// resolveProfile fills the step-time profile unless one is given: the named
// one, or else the roofline of the model on the GPU.
func (c *Config) resolveProfile(g engine.GPU, shape engine.ModelShape, kvBytes float64, named bool) error {
	if c.Profile != (engine.StepProfile{}) {
		return nil
	}
	var err error
	if named {
		c.Profile, err = engine.Profile(c.ProfileName)
	} else {
		eff := engine.CalibratedEfficiency
		if c.EngineV0 {
			eff = engine.V0Efficiency()
		}
		c.Profile, err = engine.RooflineProfile(g, shape, c.TensorParallelSize, kvBytes, eff)
	}
	return err
}

// sizeKVCache fills the number of KV blocks: what the GPUs' memory leaves
// for the known model, else DefaultNumGPUBlocks.
func (c *Config) sizeKVCache(g engine.GPU, shape engine.ModelShape, known bool, kvBytes float64) error {
	c.NumGPUBlocks = DefaultNumGPUBlocks
	if !known {
		return nil
	}
	k := engine.SizeKVCache(g, shape, c.TensorParallelSize, c.GPUMemoryUtilization, kvBytes, c.BlockSize,
		c.MaxNumBatchedTokens, c.MaxNumSeqs)
	if k.Blocks <= 0 {
		return fmt.Errorf("vllmsim: %s does not fit %d×%s at --gpu-memory-utilization %g: %.1f GiB of weights and %.1f GiB "+
			"of activations per GPU, of %.1f GiB; use more GPUs, --quantization fp8, or a larger utilization",
			c.Model, c.TensorParallelSize, g.Name, c.GPUMemoryUtilization, k.Weights/gib, (k.Activation+k.NonTorch)/gib, k.Budget/gib)
	}
	c.NumGPUBlocks = k.Blocks
	return nil
}

// engineConfig is the engine core that serves c (defaults filled).
func (c Config) engineConfig() engine.Config {
	return engine.Config{MaxNumSeqs: c.MaxNumSeqs, MaxNumBatchedTokens: c.MaxNumBatchedTokens, BlockSize: c.BlockSize,
		NumBlocks: c.NumGPUBlocks, PrefixCaching: !c.DisablePrefixCaching, DisableChunkedPrefill: c.DisableChunkedPrefill,
		PrefillFirst: c.EngineV0 && c.DisableChunkedPrefill, AsyncScheduling: c.AsyncScheduling, Profile: c.Profile}
}

// Describe says what cfg simulates, in the terms of vLLM's start-up log:
// the model on its GPUs, the step-time model, the batch limits, how the
// memory was split and how many tokens the KV cache holds.
func Describe(cfg Config) ([]string, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	chunked := "on"
	if c.DisableChunkedPrefill {
		chunked = "off"
	}
	lines := []string{
		fmt.Sprintf("Simulating %s on %d×%s; step time: %s, × %g", c.Model, c.TensorParallelSize, c.GPU, c.Profile.Name, c.Profile.Scale),
		fmt.Sprintf("max_model_len %d, max_num_seqs %d, max_num_batched_tokens %d, chunked prefill %s, performance mode %s",
			c.MaxModelLen, c.MaxNumSeqs, c.MaxNumBatchedTokens, chunked, c.PerformanceMode),
	}
	g, _ := engine.LookupGPU(c.GPU)
	shape, merr := engine.LookupModel(c.Model)
	kvBytes, _ := engine.KVElementBytes(c.KVCacheDType)
	if merr == nil {
		if c.Quantization != "" {
			shape.WeightBits, _ = engine.QuantizationBits(c.Quantization)
		}
		k := engine.SizeKVCache(g, shape, c.TensorParallelSize, c.GPUMemoryUtilization, kvBytes, c.BlockSize, c.MaxNumBatchedTokens, c.MaxNumSeqs)
		lines = append(lines, fmt.Sprintf("total_gpu_memory (%.2fGiB) x gpu_memory_utilization (%.2f) = %.2fGiB; model weights take %.2fGiB; "+
			"non_torch_memory takes %.2fGiB; activation peak takes %.2fGiB; the rest for the KV cache is %.2fGiB (%.0f bytes a token)",
			g.Memory/gib, c.GPUMemoryUtilization, k.Budget/gib, k.Weights/gib, k.NonTorch/gib, k.Activation/gib, k.Available/gib, k.PerToken))
	}
	return append(lines, fmt.Sprintf("GPU KV cache size: %d tokens (%d blocks of %d)", c.NumGPUBlocks*c.BlockSize, c.NumGPUBlocks, c.BlockSize),
		c.describeFrontend()), nil
}

// The default server's step profile and limits when nothing names the
// hardware: the hand-fit profile, 256 sequences and 30,000 KV blocks.
const (
	LegacyDefaultProfile = "h100-llama3-8b"
	legacyMaxNumSeqs     = 256
	legacyNumGPUBlocks   = 30000
)

// namesNoHardware reports whether the config leaves model, GPU, profile,
// parallelism and precision all at their defaults. A model the simulator
// does not know counts as naming nothing (it is then only the served
// name), so that a test may serve any name; with a GPU named, the roofline
// needs the model's shape and an unknown one is an error.
func (c *Config) namesNoHardware() bool {
	_, unknown := engine.LookupModel(c.Model)
	return c.ProfileName == "" && c.Profile == (engine.StepProfile{}) && c.GPU == "" &&
		(c.Model == "" || c.Model == DefaultModel || unknown != nil) && c.TensorParallelSize <= 1 &&
		c.Quantization == "" && (c.KVCacheDType == "" || c.KVCacheDType == "auto")
}

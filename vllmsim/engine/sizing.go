package engine

import (
	"fmt"
	"strings"
)

// GiB is 2^30 bytes, the unit of vLLM's memory log lines.
const GiB = gib

// Memory outside the weights and the KV cache.
const (
	// nonTorchReserve is the memory vLLM's profiling finds outside PyTorch's
	// allocator (CUDA context, cuBLAS workspaces): 0.35 GiB for
	// Llama-3.1-8B on one H100. Tensor parallelism adds NCCL's and the
	// custom all-reduce's buffers, about 0.5 GiB.
	nonTorchReserve   = 0.4 * gib
	tensorParallelAdd = 0.5 * gib
)

// KVSizing is how the KV cache was sized from the GPU's memory, per GPU, in
// bytes, as vLLM's start-up log reports it.
type KVSizing struct {
	Budget     float64 // memory × --gpu-memory-utilization
	Weights    float64 // this GPU's share of the weights
	Activation float64 // peak activations of a max_num_batched_tokens step, and the sampler's logits
	NonTorch   float64
	Available  float64 // Budget − Weights − Activation − NonTorch: the KV cache
	PerToken   float64 // KV bytes a token takes on this GPU
	Blocks     int
}

// SizeKVCache sizes the KV cache as vLLM does at start-up: what remains of
// the GPU's memory × utilization once the weights, the peak activations of
// a profiling run and the memory outside PyTorch are taken, in blocks of
// blockSize tokens. The activation estimate, max_num_batched_tokens ×
// (hidden + 2 × intermediate ÷ TP) 16-bit values held twice (input and
// output of the widest GEMM) plus max_num_seqs × vocab FP32 logits, gives
// 1.49 GiB for Llama-3.1-8B at 8192 tokens and 1024 sequences, where vLLM
// logged 1.24 GiB; the KV cache then comes within 0.5% of the 447,088
// tokens it logged (TestKVCacheSizingAgainstVLLMLogs).
func SizeKVCache(g GPU, m ModelShape, tp int, util, kvBytes float64, blockSize, maxTokens, maxSeqs int) KVSizing {
	k := KVSizing{Budget: g.Memory * util, Weights: m.WeightBytes() / float64(tp), NonTorch: nonTorchReserve,
		PerToken: m.KVBytesPerToken(tp, kvBytes)}
	if tp > 1 {
		k.NonTorch += tensorParallelAdd
	}
	inter := m.Intermediate
	if m.Experts > 0 {
		inter = m.ActiveExperts*m.ExpertIntermediate + m.SharedIntermediate
	}
	k.Activation = float64(maxTokens)*float64(m.Hidden+2*inter/tp)*2*2 + float64(maxSeqs)*float64(m.Vocab)*4
	k.Available = k.Budget - k.Weights - k.Activation - k.NonTorch
	if k.Available > 0 {
		k.Blocks = int(k.Available / (k.PerToken * float64(blockSize)))
	}
	return k
}

// KVElementBytes maps --kv-cache-dtype to bytes per element.
func KVElementBytes(dtype string) (float64, error) {
	switch strings.ToLower(dtype) {
	case "", "auto", "bfloat16", "float16", "half":
		return 2, nil
	case "fp8", "fp8_e4m3", "fp8_e5m2":
		return 1, nil
	}
	return 0, fmt.Errorf("vllmsim: --kv-cache-dtype %q is not modelled (auto, bfloat16, float16, fp8, fp8_e4m3, fp8_e5m2)", dtype)
}

// QuantizationBits maps --quantization to the weights' bits.
func QuantizationBits(q string) (int, error) {
	switch strings.ToLower(q) {
	case "fp8":
		return 8, nil
	case "awq", "awq_marlin", "gptq", "gptq_marlin":
		return 4, nil
	}
	return 0, fmt.Errorf("vllmsim: --quantization %q is not modelled (fp8, awq, gptq)", q)
}

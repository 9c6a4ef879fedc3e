package vllmsim

import (
	"fmt"
	"hash/fnv"
)

// fingerprint is the system_fingerprint vLLM's final chunk carries in its
// default mode (vllm/entrypoints/openai/fingerprint.py, "full"):
// vllm-<version>[-tp<N>]-<hash8>, the hash over the configuration that
// shapes the outputs. Ours hashes what the simulator is configured to be.
func (c Config) fingerprint() string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s|%d|%s|%d|%s|%s|%d|%d", c.Model, c.MaxModelLen, c.GPU, c.TensorParallelSize,
		c.Quantization, c.KVCacheDType, c.MaxNumSeqs, c.MaxNumBatchedTokens)
	s := "vllm-" + c.Version
	if c.TensorParallelSize > 1 {
		s += fmt.Sprintf("-tp%d", c.TensorParallelSize)
	}
	return s + fmt.Sprintf("-%08x", h.Sum32())
}

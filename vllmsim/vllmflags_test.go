package vllmsim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A command line measured on the simulator splits into vLLM's flags and
// the simulator's own; vLLM's part still parses, and names no
// simulator-only flag.
func TestVLLMArgsDropsTheSimulatorsOwnFlags(t *testing.T) {
	args := []string{"--profile", "h100-llama3-8b", "--max-num-seqs", "16", "--no-frontend", "--step-time-scale=0.5",
		"--fault-error-rate", "0.1", "--max-num-queued-reqs", "12", "--enable-prefix-caching", "--gpu", "h100"}
	vllm, simOnly := VLLMArgs(args)
	assert.Equal(t, []string{"--max-num-seqs", "16", "--max-num-queued-reqs", "12", "--enable-prefix-caching"}, vllm)
	assert.Equal(t, []string{"--profile", "h100-llama3-8b", "--no-frontend", "--step-time-scale=0.5", "--fault-error-rate", "0.1", "--gpu", "h100"}, simOnly)
	_, err := ParseServeArgs(vllm)
	require.NoError(t, err)
	for _, a := range vllm {
		assert.False(t, SimulatorOnly(a), a)
	}
	assert.True(t, SimulatorOnly("--fault-stall-for=1s"))
	assert.False(t, SimulatorOnly("--max-num-seqs"))
	assert.False(t, SimulatorOnly("16"))
}

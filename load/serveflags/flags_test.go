package serveflags

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Both spellings count, and the last occurrence wins, as vLLM's parser
// reads them; Set leaves one occurrence, at the end.
func TestTheLastValueWinsAndSetLeavesOne(t *testing.T) {
	args := []string{"--max-num-seqs=4", "--gpu-memory-utilization", "0.8", "--max-num-seqs", "6"}
	v, ok := Value(args, "--max-num-seqs")
	assert.True(t, ok)
	assert.Equal(t, "6", v)
	u, ok := Float(args, "--gpu-memory-utilization")
	assert.True(t, ok)
	assert.Equal(t, 0.8, u)
	_, ok = Int([]string{"--max-num-seqs", "many"}, "--max-num-seqs")
	assert.False(t, ok, "a value that is no integer counts as absent")
	_, ok = Value([]string{"--max-num-seqs"}, "--max-num-seqs")
	assert.False(t, ok, "a flag with no value after it")
	assert.Equal(t, []string{"--gpu-memory-utilization", "0.8", "--max-num-seqs", "8"}, Set(args, "--max-num-seqs", "8"))
}

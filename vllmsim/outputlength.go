package vllmsim

import (
	"math"

	"github.com/llmslo/llmslo/vllmsim/wire"
)

// DefaultCompletionMaxTokens is max_tokens on /v1/completions when the
// request gives none, as in vLLM (and OpenAI's legacy completions API).
const DefaultCompletionMaxTokens = wire.DefaultCompletionMaxTokens

// outputLength decides how many tokens a request generates and why it
// stops, its end-of-sequence token included. With ignore_eos it generates
// exactly maxTokens ("length"). Otherwise it stops at a pseudo-random
// end-of-sequence point drawn from an exponential distribution of mean
// meanEOS, seeded by the server seed and the prompt's content (the same
// prompt stops at the same point), but never beyond maxTokens:
// minTokens + 1 + ⌊−meanEOS·ln(1−u)⌋ tokens, "stop" when that is below
// maxTokens, "length" otherwise. min_tokens only holds the end of sequence
// off, as in vLLM: the draw starts after it (the stop is memoryless), and
// a request with min_tokens equal to max_tokens runs to max_tokens.
func outputLength(r wire.Request, maxTokens, meanEOS int, seed int64, promptHash uint64) (int, string) {
	if r.IgnoreEOS {
		return maxTokens, "length"
	}
	u := unitFloat(splitmix64(uint64(seed) ^ promptHash))
	n := r.MinTokens + 1 + int(math.Floor(-float64(meanEOS)*math.Log1p(-u)))
	if n < maxTokens {
		return n, "stop"
	}
	return maxTokens, "length"
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unitFloat maps a 64-bit value to [0, 1).
func unitFloat(x uint64) float64 { return float64(x>>11) / (1 << 53) }

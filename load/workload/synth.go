package workload

import "math/bits"

// Default vocabulary range for token-id prompts: ids below 1000 hold the
// special and control tokens of common tokenizers, and 32000 is the smallest
// common vocabulary size, so ids in [1000, 32000) are ordinary tokens almost
// everywhere.
const (
	DefaultVocabMin = 1000
	DefaultVocabMax = 32000
)

// nonceLen is how many leading tokens (or words) of a request without prefix
// blocks come from the request's own stream: unique per request and run.
const nonceLen = 4

// mix is a SplitMix64 finalizer over two words: a cheap, well-spread hash.
func mix(a, b uint64) uint64 {
	z := a ^ (b+0x9e3779b97f4a7c15)*0xbf58476d1ce4e5b9
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// stream is a SplitMix64 sequence.
type stream uint64

func (s *stream) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// below returns a value in [0, n) (n ≥ 1), by Lemire's multiply-shift; its
// bias is below 2⁻³² for any vocabulary.
func (s *stream) below(n int) int {
	hi, _ := bits.Mul64(s.next(), uint64(n))
	return int(hi)
}

// blockStream is the content of prefix block h in a run salted with salt:
// the same (salt, h) always yields the same sequence.
func blockStream(salt, h uint64) stream { return stream(mix(mix(salt, 0x626c6f636b), h)) }

// requestStream is the content of request i's own tokens (those outside
// prefix blocks), unique to the request within the run.
func requestStream(salt uint64, seed int64, i int) stream {
	return stream(mix(mix(salt, uint64(seed)), uint64(i)^0x7265717565737400))
}

// TokenSynth builds token-id prompts of exact length from a vocabulary range.
type TokenSynth struct {
	Salt               uint64
	Seed               int64
	VocabMin, VocabMax int // ids in [VocabMin, VocabMax)
	BlockSize          int
}

// IDs returns the prompt of request i with the given shape: one id per
// token, len == sh.Input. Block j's ids come from (Salt, Blocks[j]) alone, so
// requests that share hash ids share those ids exactly; tokens past the
// blocks (all of them when there are no blocks) come from (Salt, Seed, i),
// whose first tokens act as a per-request nonce.
func (t TokenSynth) IDs(i int, sh Shape) []int {
	span := t.VocabMax - t.VocabMin
	ids := make([]int, 0, sh.Input)
	for _, h := range sh.Blocks {
		s := blockStream(t.Salt, h)
		for k := 0; k < t.BlockSize && len(ids) < sh.Input; k++ {
			ids = append(ids, t.VocabMin+s.below(span))
		}
	}
	s := requestStream(t.Salt, t.Seed, i)
	for len(ids) < sh.Input {
		ids = append(ids, t.VocabMin+s.below(span))
	}
	return ids
}

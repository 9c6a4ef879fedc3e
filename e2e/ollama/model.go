package ollamae2e

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/ollama/ollama/fs/ggml"

	"github.com/llmslo/llmslo/load/workload"
)

// The tiny model's shape: a llama of two layers, width 64, random F32
// weights. It computes in microseconds a token; what a request costs on
// it is Ollama's own serving path (HTTP, scheduling, sampling, the runner).
const (
	modelLayers  = 2
	modelWidth   = 64
	modelHeads   = 4
	modelFF      = 128
	modelContext = 4096 // the trained context; the Modelfile's num_ctx is what a slot gets
)

// Special tokens, at the head of the vocabulary as in llama's SPM models.
const (
	tokUnknown = 0
	tokBOS     = 1
	tokEOS     = 2
)

// vocabulary is a byte-level SPM vocabulary, as llama's: the special
// tokens, a token for every byte (so that any text can be tokenized), and
// "▁"-prefixed pieces for the words llmslo's text prompts are made of,
// every prefix of each so that SPM's pairwise merges reach the whole word.
// A real tokenizer keeps common English words whole too; what the template
// and any other text cost is up to the tokenizer, as it would be.
func vocabulary() (tokens []string, scores []float32, types []int32) {
	add := func(tok string, score float32, typ int32) {
		tokens, scores, types = append(tokens, tok), append(scores, score), append(types, typ)
	}
	add("<unk>", 0, 2) // unknown
	add("<s>", 0, 3)   // control
	add("</s>", 0, 3)
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), 0, 6) // byte
	}
	var pieces []string
	for _, w := range promptWords() {
		for k := 1; k <= len(w); k++ {
			pieces = append(pieces, "▁"+w[:k])
		}
	}
	pieces = append(pieces, "▁")
	slices.Sort(pieces)
	for _, p := range slices.Compact(pieces) {
		add(p, float32(len(p)), 1) // longer pieces merge first
	}
	return tokens, scores, types
}

// promptWords are the words llmslo's text prompts draw from, read back
// from its own synthesizer so that the two cannot drift apart.
func promptWords() []string {
	seen := map[string]bool{}
	var out []string
	for salt := range uint64(4) {
		for _, w := range strings.Fields(workload.TextSynth{Salt: salt + 1}.Words(-1, workload.Shape{}, 20000)) {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// WriteTinyModel writes the tiny model's GGUF file to path, through
// Ollama's own writer (fs/ggml.WriteGGUF), with weights drawn from seed.
func WriteTinyModel(path string, seed uint64) error {
	tokens, scores, types := vocabulary()
	kv := ggml.KV{
		"general.architecture":                   "llama",
		"general.name":                           "llmslo-tiny",
		"general.file_type":                      uint32(0), // F32
		"llama.block_count":                      uint32(modelLayers),
		"llama.context_length":                   uint32(modelContext),
		"llama.embedding_length":                 uint32(modelWidth),
		"llama.feed_forward_length":              uint32(modelFF),
		"llama.attention.head_count":             uint32(modelHeads),
		"llama.attention.head_count_kv":          uint32(modelHeads),
		"llama.attention.layer_norm_rms_epsilon": float32(1e-5),
		"llama.rope.dimension_count":             uint32(modelWidth / modelHeads),
		"llama.rope.freq_base":                   float32(10000),
		"tokenizer.ggml.model":                   "llama",
		"tokenizer.ggml.tokens":                  tokens,
		"tokenizer.ggml.scores":                  scores,
		"tokenizer.ggml.token_type":              types,
		"tokenizer.ggml.bos_token_id":            uint32(tokBOS),
		"tokenizer.ggml.eos_token_id":            uint32(tokEOS),
		"tokenizer.ggml.unknown_token_id":        uint32(tokUnknown),
		"tokenizer.ggml.add_bos_token":           true,
		"tokenizer.ggml.add_eos_token":           false,
	}
	rng := rand.New(rand.NewPCG(seed, 0x6c6c6d736c6f))
	n := uint64(len(tokens))
	ts := []ggml.Tensor{
		tensor("token_embd.weight", rng, 1, n, modelWidth),
		tensor("output_norm.weight", nil, 1, modelWidth),
		outputTensor(rng, n),
	}
	for l := range modelLayers {
		blk := func(name string, r *rand.Rand, shape ...uint64) ggml.Tensor {
			return tensor(fmt.Sprintf("blk.%d.%s", l, name), r, 1/math.Sqrt(float64(shape[len(shape)-1])), shape...)
		}
		ts = append(ts,
			blk("attn_norm.weight", nil, modelWidth),
			blk("attn_q.weight", rng, modelWidth, modelWidth),
			blk("attn_k.weight", rng, modelWidth, modelWidth),
			blk("attn_v.weight", rng, modelWidth, modelWidth),
			blk("attn_output.weight", rng, modelWidth, modelWidth),
			blk("ffn_norm.weight", nil, modelWidth),
			blk("ffn_gate.weight", rng, modelFF, modelWidth),
			blk("ffn_up.weight", rng, modelFF, modelWidth),
			blk("ffn_down.weight", rng, modelWidth, modelFF),
		)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := ggml.WriteGGUF(f, kv, ts); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// outputTensor is the output projection, random but for the end-of-text
// row, which is zero: its logit is 0 where a thousand others are drawn
// around it, so a greedy decode never ends early and sampling rarely
// does, as a served model that was trained to write on.
func outputTensor(rng *rand.Rand, n uint64) ggml.Tensor {
	t := tensor("output.weight", rng, 1/math.Sqrt(modelWidth), n, modelWidth)
	w := t.WriterTo.(*f32s)
	clear(w.v[tokEOS*modelWidth : (tokEOS+1)*modelWidth])
	return t
}

// tensor is an F32 tensor of the given shape (rows first, as WriteGGUF
// takes it): normal draws times scale, or all ones for a nil rng (the
// norms' weights).
func tensor(name string, rng *rand.Rand, scale float64, shape ...uint64) ggml.Tensor {
	size := uint64(1)
	for _, d := range shape {
		size *= d
	}
	v := make([]float32, size)
	for i := range v {
		if rng == nil {
			v[i] = 1
		} else {
			v[i] = float32(rng.NormFloat64() * scale)
		}
	}
	return ggml.Tensor{Name: name, Kind: 0, Shape: shape, WriterTo: &f32s{v: v}}
}

// f32s writes its values as little-endian float32s: a tensor's data.
type f32s struct{ v []float32 }

func (f *f32s) WriteTo(w io.Writer) (int64, error) {
	if err := binary.Write(w, binary.LittleEndian, f.v); err != nil {
		return 0, err
	}
	return int64(4 * len(f.v)), nil
}

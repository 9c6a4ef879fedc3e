package engine

import (
	"fmt"
	"sort"
	"strings"
)

// ModelShape is what the step-time model needs of a transformer: the
// fields of its Hugging Face config.json that size its weights, its
// arithmetic and its KV cache.
type ModelShape struct {
	Name          string
	Layers        int // num_hidden_layers
	Hidden        int // hidden_size
	Intermediate  int // intermediate_size of a dense MLP
	Heads         int // num_attention_heads
	KVHeads       int // num_key_value_heads
	HeadDim       int // head_dim
	Vocab         int // vocab_size
	TiedEmbedding bool
	// Mixture of experts: each token runs ActiveExperts of Experts MLPs
	// of ExpertIntermediate, plus a shared expert when SharedIntermediate
	// is set. Experts is 0 for a dense model.
	Experts, ActiveExperts, ExpertIntermediate, SharedIntermediate int
	MaxPositions                                                   int // max_position_embeddings
	// WeightBits is the checkpoint's linear-layer precision: 16, or 8 for
	// FP8 (or W8A8) checkpoints, 4 for AWQ/GPTQ ones. Embeddings and the
	// LM head stay 16-bit, as vLLM loads them.
	WeightBits int
}

func (m ModelShape) attnParams() float64 {
	q := float64(m.Heads * m.HeadDim)
	kv := float64(m.KVHeads * m.HeadDim)
	h := float64(m.Hidden)
	return h*q + 2*h*kv + q*h // q, k, v and o projections
}

func (m ModelShape) expertParams() float64 { return 3 * float64(m.Hidden*m.ExpertIntermediate) }

// layerParams is one layer's weights that every step reads whatever its
// batch: attention, the dense MLP or the router and shared expert.
func (m ModelShape) layerParams() float64 {
	if m.Experts == 0 {
		return m.attnParams() + 3*float64(m.Hidden*m.Intermediate)
	}
	return m.attnParams() + float64(m.Hidden*m.Experts) + 3*float64(m.Hidden*m.SharedIntermediate)
}

// activeParams is the linear weights one token multiplies by, across
// layers (without embeddings and LM head): 2 × activeParams FLOPs a token.
func (m ModelShape) activeParams() float64 {
	return float64(m.Layers) * (m.layerParams() + float64(m.ActiveExperts)*m.expertParams())
}

// Params is the model's parameter count.
func (m ModelShape) Params() float64 {
	emb := float64(m.Vocab * m.Hidden)
	if !m.TiedEmbedding {
		emb *= 2
	}
	return float64(m.Layers)*(m.layerParams()+float64(m.Experts)*m.expertParams()) + emb
}

// WeightBytes is what the weights take in GPU memory over the whole
// tensor-parallel group.
func (m ModelShape) WeightBytes() float64 {
	emb := float64(m.Vocab * m.Hidden)
	if !m.TiedEmbedding {
		emb *= 2
	}
	linear := float64(m.Layers) * (m.layerParams() + float64(m.Experts)*m.expertParams())
	return linear*float64(m.WeightBits)/8 + 2*emb
}

// kvHeadsPerGPU is the KV heads one GPU holds: vLLM splits them across the
// tensor-parallel group and replicates them when there are fewer than GPUs.
func (m ModelShape) kvHeadsPerGPU(tp int) int { return max(1, m.KVHeads/tp) }

// KVBytesPerToken is the KV cache one token takes on one GPU:
// 2 (K and V) × layers × KV heads per GPU × head_dim × bytes per element.
func (m ModelShape) KVBytesPerToken(tp int, elemBytes float64) float64 {
	return 2 * float64(m.Layers*m.kvHeadsPerGPU(tp)*m.HeadDim) * elemBytes
}

func (m ModelShape) validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"num_hidden_layers", m.Layers}, {"hidden_size", m.Hidden}, {"num_attention_heads", m.Heads},
		{"num_key_value_heads", m.KVHeads}, {"head_dim", m.HeadDim}, {"vocab_size", m.Vocab}} {
		if f.v <= 0 {
			return fmt.Errorf("vllmsim: model %s: %s must be positive, got %d", m.Name, f.name, f.v)
		}
	}
	if m.Experts == 0 && m.Intermediate <= 0 {
		return fmt.Errorf("vllmsim: model %s: intermediate_size must be positive", m.Name)
	}
	if m.Experts > 0 && (m.ActiveExperts <= 0 || m.ActiveExperts > m.Experts || m.ExpertIntermediate <= 0) {
		return fmt.Errorf("vllmsim: model %s: a mixture of experts needs 0 < num_experts_per_tok ≤ experts and an expert intermediate size", m.Name)
	}
	if m.WeightBits != 4 && m.WeightBits != 8 && m.WeightBits != 16 {
		return fmt.Errorf("vllmsim: model %s: weights of %d bits are not modelled (16, 8 or 4)", m.Name, m.WeightBits)
	}
	return nil
}

// Shapes from each model's config.json on the Hugging Face Hub.
var (
	llama3_8B = ModelShape{Layers: 32, Hidden: 4096, Intermediate: 14336, Heads: 32, KVHeads: 8, HeadDim: 128,
		Vocab: 128256, MaxPositions: 131072}
	llama3_70B = ModelShape{Layers: 80, Hidden: 8192, Intermediate: 28672, Heads: 64, KVHeads: 8, HeadDim: 128,
		Vocab: 128256, MaxPositions: 131072}
	llama2_7B = ModelShape{Layers: 32, Hidden: 4096, Intermediate: 11008, Heads: 32, KVHeads: 32, HeadDim: 128,
		Vocab: 32000, MaxPositions: 4096}
	llama2_70B = ModelShape{Layers: 80, Hidden: 8192, Intermediate: 28672, Heads: 64, KVHeads: 8, HeadDim: 128,
		Vocab: 32000, MaxPositions: 4096}
	mistral7B = ModelShape{Layers: 32, Hidden: 4096, Intermediate: 14336, Heads: 32, KVHeads: 8, HeadDim: 128,
		Vocab: 32000, MaxPositions: 32768}
	mixtral8x7B = ModelShape{Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 32000,
		Experts: 8, ActiveExperts: 2, ExpertIntermediate: 14336, MaxPositions: 32768}
)

func withPositions(m ModelShape, n int) ModelShape { m.MaxPositions = n; return m }

func withVocab(m ModelShape, n int) ModelShape { m.Vocab = n; return m }

// knownModels maps normalized names (see normalizeModelName) to shapes.
var knownModels = map[string]ModelShape{
	"llama-3-8b":      withPositions(llama3_8B, 8192),
	"llama-3.1-8b":    llama3_8B,
	"llama-3-70b":     withPositions(llama3_70B, 8192),
	"llama-3.1-70b":   llama3_70B,
	"llama-3.3-70b":   llama3_70B,
	"llama-3.2-1b":    {Layers: 16, Hidden: 2048, Intermediate: 8192, Heads: 32, KVHeads: 8, HeadDim: 64, Vocab: 128256, TiedEmbedding: true, MaxPositions: 131072},
	"llama-3.2-3b":    {Layers: 28, Hidden: 3072, Intermediate: 8192, Heads: 24, KVHeads: 8, HeadDim: 128, Vocab: 128256, TiedEmbedding: true, MaxPositions: 131072},
	"llama-2-7b":      llama2_7B,
	"llama-2-70b":     llama2_70B,
	"qwen2.5-7b":      {Layers: 28, Hidden: 3584, Intermediate: 18944, Heads: 28, KVHeads: 4, HeadDim: 128, Vocab: 152064, MaxPositions: 32768},
	"qwen2.5-14b":     {Layers: 48, Hidden: 5120, Intermediate: 13824, Heads: 40, KVHeads: 8, HeadDim: 128, Vocab: 152064, MaxPositions: 32768},
	"qwen2.5-32b":     {Layers: 64, Hidden: 5120, Intermediate: 27648, Heads: 40, KVHeads: 8, HeadDim: 128, Vocab: 152064, MaxPositions: 32768},
	"qwen2.5-72b":     {Layers: 80, Hidden: 8192, Intermediate: 29568, Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 152064, MaxPositions: 32768},
	"qwen3-0.6b":      {Layers: 28, Hidden: 1024, Intermediate: 3072, Heads: 16, KVHeads: 8, HeadDim: 128, Vocab: 151936, TiedEmbedding: true, MaxPositions: 40960},
	"qwen3-4b":        {Layers: 36, Hidden: 2560, Intermediate: 9728, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 151936, TiedEmbedding: true, MaxPositions: 40960},
	"qwen3-8b":        {Layers: 36, Hidden: 4096, Intermediate: 12288, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 151936, MaxPositions: 40960},
	"qwen3-14b":       {Layers: 40, Hidden: 5120, Intermediate: 17408, Heads: 40, KVHeads: 8, HeadDim: 128, Vocab: 151936, MaxPositions: 40960},
	"qwen3-32b":       {Layers: 64, Hidden: 5120, Intermediate: 25600, Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 151936, MaxPositions: 40960},
	"qwen3-30b-a3b":   {Layers: 48, Hidden: 2048, Heads: 32, KVHeads: 4, HeadDim: 128, Vocab: 151936, Experts: 128, ActiveExperts: 8, ExpertIntermediate: 768, MaxPositions: 40960},
	"qwen3-235b-a22b": {Layers: 94, Hidden: 4096, Heads: 64, KVHeads: 4, HeadDim: 128, Vocab: 151936, Experts: 128, ActiveExperts: 8, ExpertIntermediate: 1536, MaxPositions: 40960},
	"mistral-7b-v0.1": mistral7B,
	"mistral-7b-v0.2": mistral7B,
	"mistral-7b-v0.3": withVocab(mistral7B, 32768),
	"mixtral-8x7b":    mixtral8x7B,
}

// DefaultModel's shape: Llama 3.1 8B, with a 16384-token context that fits
// the Azure conversation traces (at most 14050 tokens in, 1000 out).
var defaultModelShape = withPositions(llama3_8B, 16384)

// nameNoise are the parts of a Hugging Face name that do not change the
// shape: fine-tuning, packaging and quantization labels.
var nameNoise = map[string]bool{"instruct": true, "chat": true, "hf": true, "base": true, "it": true,
	"fp8": true, "dynamic": true, "2507": true, "awq": true, "gptq": true, "int4": true, "int8": true,
	"w8a8": true, "w4a16": true}

// normalizeModelName reduces "meta-llama/Meta-Llama-3.1-70B-Instruct-FP8" to
// "llama-3.1-70b": the repository name, lower case, without labels.
func normalizeModelName(name string) string {
	n := strings.ToLower(name)
	if i := strings.LastIndex(n, "/"); i >= 0 {
		n = n[i+1:]
	}
	var kept []string
	for _, p := range strings.Split(n, "-") {
		if nameNoise[p] || strings.HasPrefix(p, "quantized") {
			continue
		}
		kept = append(kept, p)
	}
	if len(kept) > 0 && kept[0] == "meta" {
		kept = kept[1:]
	}
	n = strings.Join(kept, "-")
	if n == "mixtral-8x7b-v0.1" {
		n = "mixtral-8x7b"
	}
	return n
}

// weightBitsFromName reads a quantization label in a checkpoint's name.
func weightBitsFromName(name string) int {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "fp8"), strings.Contains(n, "w8a8"), strings.Contains(n, "int8"):
		return 8
	case strings.Contains(n, "awq"), strings.Contains(n, "gptq"), strings.Contains(n, "w4a16"), strings.Contains(n, "int4"):
		return 4
	}
	return 16
}

// DefaultModel is the model simulated when none is named: Llama 3.1 8B's
// shape with a 16,384-token context.
const DefaultModel = "llmslo/sim-llama-3-8b"

// LookupModel returns the shape of a model given as vLLM's --model takes it:
// a Hugging Face name the simulator knows (see KnownModels), or a local
// directory or file holding the model's config.json.
func LookupModel(name string) (ModelShape, error) {
	if name == DefaultModel {
		s := defaultModelShape
		s.Name, s.WeightBits = name, 16
		return s, nil
	}
	if s, ok, err := shapeFromPath(name); ok || err != nil {
		return s, err
	}
	s, ok := knownModels[normalizeModelName(name)]
	if !ok {
		return ModelShape{}, fmt.Errorf("vllmsim: unknown model %q: give a local directory or config.json path for it, "+
			"or one of the known models (%s), or a named step profile with --profile", name, strings.Join(KnownModels(), ", "))
	}
	s.Name, s.WeightBits = name, weightBitsFromName(name)
	return s, nil
}

// KnownModels lists the model names LookupModel knows without a config.json,
// normalized (any organisation and -Instruct, -FP8, … suffixes are accepted
// around them), sorted.
func KnownModels() []string {
	names := make([]string, 0, len(knownModels))
	for n := range knownModels {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

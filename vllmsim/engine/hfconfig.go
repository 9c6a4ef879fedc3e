package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// hfConfig is the part of a Hugging Face config.json the simulator reads.
type hfConfig struct {
	NumHiddenLayers       int  `json:"num_hidden_layers"`
	HiddenSize            int  `json:"hidden_size"`
	IntermediateSize      int  `json:"intermediate_size"`
	NumAttentionHeads     int  `json:"num_attention_heads"`
	NumKeyValueHeads      int  `json:"num_key_value_heads"`
	HeadDim               int  `json:"head_dim"`
	VocabSize             int  `json:"vocab_size"`
	TieWordEmbeddings     bool `json:"tie_word_embeddings"`
	MaxPositionEmbeddings int  `json:"max_position_embeddings"`
	// Mixtral names its experts num_local_experts, Qwen MoE num_experts.
	NumLocalExperts              int `json:"num_local_experts"`
	NumExperts                   int `json:"num_experts"`
	NumExpertsPerTok             int `json:"num_experts_per_tok"`
	MoEIntermediateSize          int `json:"moe_intermediate_size"`
	SharedExpertIntermediateSize int `json:"shared_expert_intermediate_size"`

	QuantizationConfig *struct {
		QuantMethod  string `json:"quant_method"`
		Bits         int    `json:"bits"`
		ConfigGroups map[string]struct {
			Weights *struct {
				NumBits int `json:"num_bits"`
			} `json:"weights"`
		} `json:"config_groups"`
	} `json:"quantization_config"`

	// Multimodal checkpoints nest the language model's fields here.
	TextConfig *hfConfig `json:"text_config"`
}

// shapeFromPath reads the config.json at path (a file, or a directory that
// holds one). It reports ok false, with no error, when path names nothing
// on disk, so that the name can be looked up as a Hugging Face name.
func shapeFromPath(path string) (ModelShape, bool, error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ModelShape{}, false, nil
	}
	if err != nil {
		return ModelShape{}, true, fmt.Errorf("vllmsim: model %s: %w", path, err)
	}
	file := path
	if info.IsDir() {
		file = filepath.Join(path, "config.json")
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return ModelShape{}, true, fmt.Errorf("vllmsim: model %s: %w", path, err)
	}
	s, err := parseHFConfig(raw)
	if err != nil {
		return ModelShape{}, true, fmt.Errorf("vllmsim: model %s: %s: %w", path, filepath.Base(file), err)
	}
	s.Name = path
	if err := s.validate(); err != nil {
		return ModelShape{}, true, err
	}
	return s, true, nil
}

// parseHFConfig maps config.json fields to a shape, filling what the
// transformers library fills when a field is absent: num_key_value_heads
// defaults to num_attention_heads, head_dim to hidden_size / heads.
func parseHFConfig(raw []byte) (ModelShape, error) {
	var c hfConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		return ModelShape{}, err
	}
	if c.NumHiddenLayers == 0 && c.TextConfig != nil {
		outer := c.QuantizationConfig
		c = *c.TextConfig
		if c.QuantizationConfig == nil {
			c.QuantizationConfig = outer
		}
	}
	s := ModelShape{Layers: c.NumHiddenLayers, Hidden: c.HiddenSize, Intermediate: c.IntermediateSize,
		Heads: c.NumAttentionHeads, KVHeads: c.NumKeyValueHeads, HeadDim: c.HeadDim, Vocab: c.VocabSize,
		TiedEmbedding: c.TieWordEmbeddings, MaxPositions: c.MaxPositionEmbeddings, WeightBits: 16}
	if s.KVHeads == 0 {
		s.KVHeads = s.Heads
	}
	if s.HeadDim == 0 && s.Heads > 0 {
		s.HeadDim = s.Hidden / s.Heads
	}
	s.Experts = max(c.NumLocalExperts, c.NumExperts)
	if s.Experts > 0 {
		s.ActiveExperts = c.NumExpertsPerTok
		s.ExpertIntermediate = c.MoEIntermediateSize
		if s.ExpertIntermediate == 0 {
			s.ExpertIntermediate = c.IntermediateSize // Mixtral: every MLP is an expert
		}
		s.SharedIntermediate = c.SharedExpertIntermediateSize
	}
	if q := c.QuantizationConfig; q != nil {
		switch {
		case strings.EqualFold(q.QuantMethod, "fp8"):
			s.WeightBits = 8
		case q.Bits > 0:
			s.WeightBits = q.Bits
		default:
			for _, g := range q.ConfigGroups {
				if g.Weights != nil && g.Weights.NumBits > 0 {
					s.WeightBits = g.Weights.NumBits
				}
			}
		}
	}
	return s, nil
}

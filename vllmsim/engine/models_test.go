package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The shapes give the parameter counts the model cards publish.
func TestModelParameterCounts(t *testing.T) {
	for _, c := range []struct {
		name    string
		billion float64
	}{
		{"meta-llama/Meta-Llama-3-8B", 8.03}, {"meta-llama/Llama-3.3-70B-Instruct", 70.55},
		{"meta-llama/Llama-2-7b-hf", 6.74}, {"meta-llama/Llama-2-70b-hf", 68.98},
		{"Qwen/Qwen2.5-7B-Instruct", 7.62}, {"Qwen/Qwen2.5-72B-Instruct", 72.7},
		{"Qwen/Qwen3-8B", 8.19}, {"Qwen/Qwen3-0.6B", 0.60}, {"Qwen/Qwen3-235B-A22B", 235.1},
		{"mistralai/Mistral-7B-Instruct-v0.3", 7.25}, {"mistralai/Mixtral-8x7B-Instruct-v0.1", 46.7},
	} {
		m, err := LookupModel(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Params() / 1e9; got < c.billion*0.99 || got > c.billion*1.01 {
			t.Errorf("%s: %.2f B parameters, the model card says %.2f B", c.name, got, c.billion)
		}
	}
}

// vLLM logged "Model loading took 12.5524 GiB" for Llama-2-7B and 67.72 GiB
// for Llama-3.1-70B with 8-bit weights (embeddings and LM head stay 16-bit).
func TestModelWeightBytesAgainstVLLMLogs(t *testing.T) {
	m7, _ := LookupModel("meta-llama/Llama-2-7b-hf")
	near(t, "Llama-2-7B GiB", m7.WeightBytes()/gib, 12.5524, 0.005)
	m70, _ := LookupModel("neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8")
	near(t, "Llama-3.1-70B W8A8 GiB", m70.WeightBytes()/gib, 67.72, 0.1)
}

func TestModelNames(t *testing.T) {
	for name, want := range map[string]string{
		"meta-llama/Meta-Llama-3.1-70B-Instruct-FP8": "llama-3.1-70b",
		"Llama-2-7b-chat-hf":                         "llama-2-7b",
		"mistralai/Mistral-7B-Instruct-v0.3":         "mistral-7b-v0.3",
		"Qwen/Qwen3-30B-A3B-Instruct-2507":           "qwen3-30b-a3b",
		"mistralai/Mixtral-8x7B-Instruct-v0.1":       "mixtral-8x7b",
	} {
		if got := normalizeModelName(name); got != want {
			t.Errorf("%s normalizes to %q, want %q", name, got, want)
		}
	}
	fp8, _ := LookupModel("RedHatAI/Meta-Llama-3.1-70B-Instruct-FP8")
	awq, _ := LookupModel("Qwen/Qwen2.5-72B-Instruct-AWQ")
	if fp8.WeightBits != 8 || awq.WeightBits != 4 {
		t.Errorf("weight bits %d (FP8 checkpoint), %d (AWQ checkpoint)", fp8.WeightBits, awq.WeightBits)
	}
	_, err := LookupModel("acme/llm-9000")
	if err == nil || !strings.Contains(err.Error(), `unknown model "acme/llm-9000"`) ||
		!strings.Contains(err.Error(), "qwen3-30b-a3b") || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("unknown model: %v", err)
	}
}

func TestGPUNames(t *testing.T) {
	for _, n := range []string{"H100", "h100-sxm", "NVIDIA H100", "mi300x", "AMD MI300X"} {
		if _, err := LookupGPU(n); err != nil {
			t.Error(err)
		}
	}
	if _, err := LookupGPU("v100"); err == nil || !strings.Contains(err.Error(), "a100, b200, h100, h200, l40s, mi300x") {
		t.Errorf("unknown GPU: %v", err)
	}
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A config.json is read from a model directory or given directly, with
// transformers' defaults for absent fields and the MoE and quantization
// fields of the Mixtral, Qwen MoE, FP8 and compressed-tensors checkpoints.
func TestModelFromConfigJSON(t *testing.T) {
	dense := writeConfig(t, `{"architectures":["LlamaForCausalLM"],"num_hidden_layers":32,"hidden_size":4096,
		"intermediate_size":11008,"num_attention_heads":32,"vocab_size":32000,"max_position_embeddings":4096}`)
	m, err := LookupModel(dense)
	if err != nil {
		t.Fatal(err)
	}
	want := llama2_7B
	want.Name, want.WeightBits = dense, 16
	if m != want {
		t.Errorf("dense config: %+v, want %+v (Llama-2-7B)", m, want)
	}
	if m2, err := LookupModel(filepath.Join(dense, "config.json")); err != nil || m2.Layers != 32 {
		t.Errorf("config.json given as a file: %+v, %v", m2, err)
	}

	mixtral := writeConfig(t, `{"num_hidden_layers":32,"hidden_size":4096,"intermediate_size":14336,"num_attention_heads":32,
		"num_key_value_heads":8,"vocab_size":32000,"num_local_experts":8,"num_experts_per_tok":2,
		"quantization_config":{"quant_method":"fp8"}}`)
	m, err = LookupModel(mixtral)
	if err != nil || m.Experts != 8 || m.ActiveExperts != 2 || m.ExpertIntermediate != 14336 || m.WeightBits != 8 {
		t.Errorf("Mixtral FP8 config: %+v, %v", m, err)
	}

	qwenMoE := writeConfig(t, `{"text_config":{"num_hidden_layers":48,"hidden_size":2048,"intermediate_size":6144,
		"num_attention_heads":32,"num_key_value_heads":4,"head_dim":128,"vocab_size":151936,"num_experts":128,
		"num_experts_per_tok":8,"moe_intermediate_size":768},
		"quantization_config":{"quant_method":"compressed-tensors","config_groups":{"group_0":{"weights":{"num_bits":4}}}}}`)
	m, err = LookupModel(qwenMoE)
	if err != nil || m.Experts != 128 || m.ExpertIntermediate != 768 || m.HeadDim != 128 || m.WeightBits != 4 {
		t.Errorf("nested Qwen MoE config: %+v, %v", m, err)
	}

	for body, msg := range map[string]string{
		`{"hidden_size":4096}`: "num_hidden_layers must be positive",
		`{"num_hidden_layers":2,"hidden_size":64,"intermediate_size":128,"num_attention_heads":4,"vocab_size":10,"num_experts":4,"num_experts_per_tok":8}`: "num_experts_per_tok",
		`{`: "unexpected end of JSON",
	} {
		if _, err := LookupModel(writeConfig(t, body)); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want it to say %q", body, err, msg)
		}
	}
	if _, err := LookupModel(t.TempDir()); err == nil || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("a directory without config.json: %v", err)
	}
}

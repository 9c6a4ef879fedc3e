package vllmsim

import (
	"strings"
	"testing"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

func resolved(t testing.TB, c Config) Config {
	t.Helper()
	r, err := c.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Batch limits follow vllm serve's hardware rule and its performance and
// chunked-prefill adjustments.
func TestBatchDefaults(t *testing.T) {
	for _, c := range []struct {
		cfg            Config
		tokens, seqs   int
		chunkedOffNote string
	}{
		{Config{GPU: "h100"}, 8192, 1024, ""},
		{Config{GPU: "h200"}, 8192, 1024, ""},
		{Config{GPU: "b200"}, 8192, 1024, ""},
		{Config{GPU: "mi300x"}, 8192, 1024, ""},
		{Config{GPU: "a100"}, 2048, 256, "80 GB, but an A100"},
		{Config{GPU: "l40s"}, 2048, 256, "48 GB"},
		{Config{GPU: "h100", PerformanceMode: "throughput"}, 16384, 2048, ""},
		{Config{GPU: "a100", PerformanceMode: "throughput"}, 4096, 512, ""},
		{Config{GPU: "h100", PerformanceMode: "interactivity"}, 8192, 1024, ""},
		{Config{GPU: "h100", DisableChunkedPrefill: true}, 16384, 1024, "raised to max_model_len"},
		{Config{GPU: "h100", MaxModelLen: 4, MaxNumSeqs: 2, NumGPUBlocks: 100}, 8, 2, "capped at seqs × len"},
		{Config{GPU: "h100", MaxNumBatchedTokens: 512}, 512, 512, "seqs capped at the budget"},
		{Config{GPU: "h100", PerformanceMode: "throughput", MaxNumSeqs: 8}, 16384, 8, "explicit values stay"},
	} {
		r := resolved(t, c.cfg)
		if r.MaxNumBatchedTokens != c.tokens || r.MaxNumSeqs != c.seqs {
			t.Errorf("%+v (%s): %d tokens, %d seqs; want %d and %d", c.cfg, c.chunkedOffNote, r.MaxNumBatchedTokens, r.MaxNumSeqs, c.tokens, c.seqs)
		}
	}
	if d := resolved(t, Config{GPU: DefaultGPU}); d.MaxNumSeqs != DefaultMaxNumSeqs || d.MaxNumBatchedTokens != DefaultMaxNumBatchedTokens ||
		d.MaxModelLen != DefaultMaxModelLen || d.GPU != DefaultGPU {
		t.Errorf("defaults %+v disagree with the Default constants", d)
	}
	// Naming nothing keeps the hand-fit profile and its limits.
	if d := resolved(t, Config{}); d.Profile.Name != LegacyDefaultProfile || d.MaxNumSeqs != 256 || d.NumGPUBlocks != 30000 ||
		d.MaxNumBatchedTokens != DefaultMaxNumBatchedTokens {
		t.Errorf("a config that names nothing: %+v", d)
	}
}

// vLLM's start-up logs of two runs on an 80 GB H100 give the KV cache the
// simulator must size within 1%: Llama-3.1-8B at --gpu-memory-utilization
// 0.9, "GPU KV cache size: 447,088 tokens"; Llama-2-7B (vLLM 0.11.0,
// --max-model-len 4096 --max-num-batched-tokens 4096 --max-num-seqs 256,
// logged in inference-sim's ground truth), "119,008 tokens".
func TestKVCacheSizingAgainstVLLMLogs(t *testing.T) {
	for _, c := range []struct {
		cfg    Config
		tokens int
	}{
		{Config{Model: "meta-llama/Llama-3.1-8B-Instruct"}, 447088},
		{Config{Model: "meta-llama/Llama-2-7b-hf", MaxModelLen: 4096, MaxNumBatchedTokens: 4096, MaxNumSeqs: 256}, 119008},
	} {
		r := resolved(t, c.cfg)
		got := r.NumGPUBlocks * r.BlockSize
		if ratio := float64(got) / float64(c.tokens); ratio < 0.99 || ratio > 1.01 {
			t.Errorf("%s: KV cache %d tokens, vLLM logged %d", c.cfg.Model, got, c.tokens)
		}
		t.Logf("%s: %d tokens, vLLM %d", c.cfg.Model, got, c.tokens)
	}
}

// Llama-3.1-70B with FP8 weights on one H200. No vLLM log of this setup
// was found; by hand, per the documented method:
//
//	budget      0.9 × 139.81 GiB                                       = 125.829 GiB
//	weights     68,451,041,280 linear × 1 B + 2,101,346,304 embedding
//	            and LM head × 2 B = 72,653,733,888 B                   =  67.664 GiB
//	activations 8192 × (8192 + 2 × 28672) × 2 B × 2
//	            + 1024 × 128,256 × 4 B                                 =   2.489 GiB
//	non-torch                                                          =   0.400 GiB
//	KV cache    125.829 − 67.664 − 2.489 − 0.4                         =  55.276 GiB
//	per token   2 × 80 layers × 8 KV heads × 128 × 2 B                 = 327,680 B
//	blocks      ⌊55.276 GiB ÷ (16 × 327,680 B)⌋                        =  11,320 (181,120 tokens)
//
// An FP8 KV cache holds twice the tokens, and 131,072-token requests (the
// model's context, the default --max-model-len) fit.
func TestKVCacheSizing70BFP8OnH200(t *testing.T) {
	r := resolved(t, Config{Model: "RedHatAI/Llama-3.1-70B-Instruct-FP8", GPU: "h200"})
	if r.NumGPUBlocks != 11320 || r.MaxModelLen != 131072 {
		t.Errorf("%d blocks, max_model_len %d; want 11320 and 131072", r.NumGPUBlocks, r.MaxModelLen)
	}
	fp8kv := resolved(t, Config{Model: "RedHatAI/Llama-3.1-70B-Instruct-FP8", GPU: "h200", KVCacheDType: "fp8"})
	if fp8kv.NumGPUBlocks != 22640 {
		t.Errorf("FP8 KV cache: %d blocks, want 22640 (twice the tokens)", fp8kv.NumGPUBlocks)
	}
	lines, err := Describe(Config{Model: "RedHatAI/Llama-3.1-70B-Instruct-FP8", GPU: "h200"})
	if err != nil || !strings.Contains(strings.Join(lines, "\n"), "GPU KV cache size: 181120 tokens (11320 blocks of 16)") {
		t.Errorf("Describe: %q, %v", lines, err)
	}
	for _, l := range lines {
		t.Log(l)
	}
}

// The vLLM flags that size the deployment change what is simulated.
func TestHardwareFlagsTakeEffect(t *testing.T) {
	parse := func(args ...string) Config {
		c, err := ParseServeArgs(args)
		if err != nil {
			t.Fatal(err)
		}
		return resolved(t, c)
	}
	base := parse("Qwen/Qwen3-14B", "--gpu", "h100")
	tp2 := parse("Qwen/Qwen3-14B", "--gpu", "h100", "--tensor-parallel-size", "2")
	fp8 := parse("Qwen/Qwen3-14B", "--gpu", "h100", "--quantization", "fp8")
	kv8 := parse("Qwen/Qwen3-14B", "--gpu", "h100", "--kv-cache-dtype", "fp8")
	half := parse("Qwen/Qwen3-14B", "--gpu", "h100", "--gpu-memory-utilization", "0.7")
	if !(tp2.NumGPUBlocks > 2*base.NumGPUBlocks && fp8.NumGPUBlocks > base.NumGPUBlocks &&
		kv8.NumGPUBlocks >= 2*base.NumGPUBlocks-1 && half.NumGPUBlocks < base.NumGPUBlocks) {
		t.Errorf("KV blocks: base %d, TP 2 %d, FP8 weights %d, FP8 KV %d, 0.7 utilization %d",
			base.NumGPUBlocks, tp2.NumGPUBlocks, fp8.NumGPUBlocks, kv8.NumGPUBlocks, half.NumGPUBlocks)
	}
	decode := engine.StepShape{Tokens: 8, Seqs: 8, Sampled: 8, ContextTokens: 8000}
	tb, t2, t8 := base.Profile.StepTime(decode), tp2.Profile.StepTime(decode), fp8.Profile.StepTime(decode)
	if !(t2 < tb && t8 < tb) {
		t.Errorf("decode step %v; with TP 2 %v, FP8 %v: both should be faster", tb, t2, t8)
	}
	slow := parse("Qwen/Qwen3-14B", "--step-time-scale", "2.5")
	if got, want := slow.Profile.StepTime(decode), time.Duration(2.5*float64(tb)); got != want {
		t.Errorf("--step-time-scale 2.5: %v, want %v", got, want)
	}
	if again := resolved(t, slow); again.Profile.StepTime(decode) != slow.Profile.StepTime(decode) {
		t.Errorf("resolving a resolved config scaled its steps again: %v, then %v", slow.Profile.StepTime(decode), again.Profile.StepTime(decode))
	}
	if a := parse("Qwen/Qwen3-14B", "--gpu", "a100"); a.Profile.StepTime(decode) <= tb || a.MaxNumSeqs != 256 {
		t.Errorf("A100: step %v (H100 %v), max_num_seqs %d", a.Profile.StepTime(decode), tb, a.MaxNumSeqs)
	}
	if c := parse("Qwen/Qwen3-14B", "--max-model-len", "8192", "--no-enable-chunked-prefill"); !c.DisableChunkedPrefill ||
		c.MaxModelLen != 8192 || c.MaxNumBatchedTokens != 8192 {
		t.Errorf("chunked prefill off: %+v", c)
	}
	if base.MaxModelLen != 40960 {
		t.Errorf("max_model_len %d, want Qwen3's 40960", base.MaxModelLen)
	}
	legacy := parse("acme/unknown-model", "--profile", "h100-llama3-8b")
	if legacy.NumGPUBlocks != DefaultNumGPUBlocks || legacy.Profile.Name != "h100-llama3-8b" {
		t.Errorf("a named profile serves any model name: %+v", legacy)
	}
}

func TestHardwareErrors(t *testing.T) {
	for _, c := range []struct {
		cfg Config
		msg string
	}{
		{Config{Model: "acme/unknown-model", GPU: "h100"}, `unknown model "acme/unknown-model"`},
		{Config{GPU: "tpu"}, `unknown GPU "tpu"`},
		{Config{Model: "meta-llama/Llama-3.1-70B-Instruct", GPU: "h100"}, "does not fit 1×h100"},
		{Config{Model: "meta-llama/Llama-3.1-70B-Instruct", TensorParallelSize: 3}, "cannot be split"},
		{Config{GPUMemoryUtilization: 1.5}, "--gpu-memory-utilization"},
		{Config{PerformanceMode: "fast"}, "--performance-mode"},
		{Config{KVCacheDType: "int4"}, "--kv-cache-dtype"},
		{Config{Quantization: "bitsandbytes"}, "--quantization"},
		{Config{StepTimeScale: -1}, "--step-time-scale"},
		{Config{DisableChunkedPrefill: true, MaxNumBatchedTokens: 2048, MaxModelLen: 4096}, "smaller than --max-model-len"},
	} {
		if _, err := c.cfg.withDefaults(); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: error %v, want it to say %q", c.cfg, err, c.msg)
		}
	}
}

// With chunked prefill off, a prompt longer than the rest of the budget
// waits for the next step instead of being split.
func TestChunkedPrefillOff(t *testing.T) {
	for _, off := range []bool{false, true} {
		e := configEngine(t, Config{MaxNumBatchedTokens: 1000, MaxModelLen: 1000, DisableChunkedPrefill: off})
		e.Add(engine.NewSeq(1, wordsPrompt(1, 600), 2))
		e.Add(engine.NewSeq(2, wordsPrompt(2, 600), 2))
		b := e.Schedule()
		want := []int{600, 400}
		if off {
			want = want[:1]
		}
		if len(b.Entries) != len(want) {
			t.Fatalf("chunked prefill off=%v: %d sequences in the first step, want %d", off, len(b.Entries), len(want))
		}
		for i, en := range b.Entries {
			if en.Tokens != want[i] {
				t.Errorf("off=%v: entry %d has %d tokens, want %d", off, i, en.Tokens, want[i])
			}
		}
	}
}

// A model name the simulator does not know, with nothing else named, is
// only the served name: the default hand-fit server answers to it.
func TestUnknownModelAloneServesTheDefault(t *testing.T) {
	r := resolved(t, Config{Model: "acme/unknown-model"})
	if r.Profile.Name != LegacyDefaultProfile || r.MaxNumSeqs != 256 || r.servedName() != "acme/unknown-model" {
		t.Errorf("%+v", r)
	}
}

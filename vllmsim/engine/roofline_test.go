package engine

import (
	"math"
	"testing"
	"time"
)

func roofline(t *testing.T, gpu, model string, tp int, kvBytes float64) *Roofline {
	t.Helper()
	g, err := LookupGPU(gpu)
	if err != nil {
		t.Fatal(err)
	}
	m, err := LookupModel(model)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRoofline(g, m, tp, kvBytes, CalibratedEfficiency)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6g, want %.6g ± %.2g", what, got, want, tol)
	}
}

// One decode step of Llama-3.1-8B on an H100, by hand:
//
//	layer weights  32 × (41,943,040 attention + 176,160,768 MLP) × 2 B = 13,958,643,712 B
//	               ÷ (3.35 TB/s × 0.8 = 2.68e12 B/s)                    = 5.208449 ms
//	               (FLOPs 2 × 6,979,321,856 ÷ (989e12 × 0.6) = 0.0235 ms: memory-bound)
//	LM head        128,256 × 4,096 × 2 B = 1,050,673,152 B ÷ 2.68e12     = 0.392042 ms
//	attention      1,023 cached tokens × 131,072 B ÷ 2.68e12            = 0.050032 ms
//	CPU            1.8 ms + 1 × 4 µs                                    = 1.804 ms
//	total                                                               = 7.454523 ms
func TestRooflineDecodeStepByHand(t *testing.T) {
	r := roofline(t, "h100", "meta-llama/Llama-3.1-8B-Instruct", 1, 2)
	lin, head, attn, comm, cpu := r.Parts(StepShape{Tokens: 1, Seqs: 1, Sampled: 1, ContextTokens: 1023})
	near(t, "GEMMs (ms)", lin*1e3, 5.208449, 1e-5)
	near(t, "LM head (ms)", head*1e3, 0.392042, 1e-5)
	near(t, "attention (ms)", attn*1e3, 0.050032, 1e-5)
	near(t, "all-reduce (ms)", comm*1e3, 0, 0)
	near(t, "CPU (ms)", cpu*1e3, 1.804, 1e-9)
	if got := r.StepTime(StepShape{Tokens: 1, Seqs: 1, Sampled: 1, ContextTokens: 1023}); got.Round(time.Microsecond) != 7455*time.Microsecond {
		t.Errorf("decode step %v, want 7.455ms", got)
	}
}

// The first step of a 1024-token prompt, by hand: the GEMMs are
// compute-bound, 1024 × 2 × 6,979,321,856 FLOPs ÷ (989e12 × 0.6) =
// 24.087717 ms; attention over 1024·1025/2 = 524,800 query-key pairs ×
// 4 × 32 heads × 128 × 32 layers = 2.75146e11 FLOPs ÷ (989e12 × 0.5) =
// 0.556413 ms; LM head and CPU as for a decode: 26.840171 ms in all.
func TestRooflinePrefillStepByHand(t *testing.T) {
	r := roofline(t, "h100", "meta-llama/Llama-3.1-8B-Instruct", 1, 2)
	s := StepShape{Tokens: 1024, Seqs: 1, Sampled: 1, PrefillPairs: 1024 * 1025 / 2}
	lin, head, attn, _, cpu := r.Parts(s)
	near(t, "GEMMs (ms)", lin*1e3, 24.087717, 1e-5)
	near(t, "attention (ms)", attn*1e3, 0.556412, 1e-5)
	near(t, "total (ms)", (lin+head+attn+cpu)*1e3, 26.840171, 1e-5)
}

// Decode is bound by bandwidth until the batch reaches the GPU's ridge:
// the GEMMs cost the same from 1 to about 200 sequences, then grow with the
// batch; the KV read grows with the cached tokens throughout.
func TestRooflineDecodeIsMemoryBoundAtSmallBatch(t *testing.T) {
	r := roofline(t, "h100", "meta-llama/Llama-3.1-8B-Instruct", 1, 2)
	at := func(b int) (float64, float64) {
		l, _, a, _, _ := r.Parts(StepShape{Tokens: b, Seqs: b, Sampled: b, ContextTokens: b * 1000})
		return l, a
	}
	l1, a1 := at(1)
	l128, a128 := at(128)
	l512, _ := at(512)
	if l128 != l1 {
		t.Errorf("GEMMs at batch 128 %.3f ms, at batch 1 %.3f ms: should both be the weight read", l128*1e3, l1*1e3)
	}
	// Ridge: 2.68e12 B/s reads the weights in 5.208 ms, while 593.4 TFLOP/s
	// do 222 tokens' 13.96 GFLOP in that time.
	near(t, "GEMMs at batch 512 (ms)", l512*1e3, 512*2*6979321856/593.4e12*1e3, 1e-6)
	near(t, "KV read grows linearly", a128/a1, 128, 1e-9)
}

// Tensor parallelism splits weights and heads, and adds two all-reduces a
// layer: for Llama-3.1-70B on 4×H100 at batch 64,
// 2 × 80 × (8 µs + 2·3/4 × 64 × 16,384 B ÷ (450e9 × 0.7)) = 2.078915 ms.
func TestRooflineTensorParallel(t *testing.T) {
	r1 := roofline(t, "h200", "meta-llama/Llama-3.1-70B-Instruct", 1, 2)
	r4 := roofline(t, "h100", "meta-llama/Llama-3.1-70B-Instruct", 4, 2)
	_, _, _, comm, _ := r4.Parts(StepShape{Tokens: 64, Seqs: 64, Sampled: 64})
	near(t, "all-reduce (ms)", comm*1e3, 2.078915, 1e-6)
	near(t, "weights per GPU", r4.denseBytes*4, r1.denseBytes, 1)
	if r4.kvBytesPerToken != r1.kvBytesPerToken/4 {
		t.Errorf("KV per token per GPU %v on 4 GPUs, %v on one", r4.kvBytesPerToken, r1.kvBytesPerToken)
	}
	// 8 KV heads across 16 GPUs are replicated, one head a GPU, as vLLM does.
	m, _ := LookupModel("meta-llama/Llama-3.1-70B-Instruct")
	if m.KVBytesPerToken(16, 2) != m.KVBytesPerToken(8, 2) {
		t.Error("KV heads should be replicated, not split below one a GPU")
	}
}

// A mixture of experts reads only the experts its tokens are routed to:
// one Mixtral token reads 2 of 8, two tokens 8(1 − 0.75²) = 3.5 on
// average, a large batch all 8.
func TestRooflineMixtureOfExperts(t *testing.T) {
	r := roofline(t, "h100", "mistralai/Mixtral-8x7B-Instruct-v0.1", 2, 2)
	near(t, "experts for 1 token", r.expertsTouched(1), 2, 1e-12)
	near(t, "experts for 2 tokens", r.expertsTouched(2), 3.5, 1e-12)
	near(t, "experts for 256 tokens", r.expertsTouched(256), 8, 1e-9)
	one, _, _, _, _ := r.Parts(StepShape{Tokens: 1, Seqs: 1})
	big, _, _, _, _ := r.Parts(StepShape{Tokens: 64, Seqs: 64})
	if big < 3*one {
		t.Errorf("64 tokens read every expert (%.2f ms), one token two of eight (%.2f ms)", big*1e3, one*1e3)
	}
	// Qwen3-30B-A3B: each token computes with 3.3 B of its 30.5 B weights.
	q, _ := LookupModel("Qwen/Qwen3-30B-A3B")
	near(t, "Qwen3-30B-A3B parameters (B)", q.Params()/1e9, 30.5, 0.1)
	near(t, "active parameters (B)", (q.activeParams()+2*float64(q.Vocab*q.Hidden))/1e9, 3.3, 0.1)
}

// FP8 weights halve the bytes a step reads and double the peak the GEMMs
// run at, on a GPU with FP8 tensor cores; an A100 reads one byte a weight
// but multiplies at its 16-bit rate.
func TestRooflineFP8(t *testing.T) {
	r16 := roofline(t, "h100", "meta-llama/Llama-3.1-8B-Instruct", 1, 2)
	r8 := roofline(t, "h100", "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", 1, 2)
	near(t, "FP8 layer bytes", r8.denseBytes, r16.denseBytes/2, 1)
	near(t, "FP8 peak", r8.linearPeak, 1979e12*0.6, 1)
	a8 := roofline(t, "a100", "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", 1, 2)
	a16 := roofline(t, "a100", "meta-llama/Llama-3.1-8B-Instruct", 1, 2)
	if a8.linearPeak != a16.linearPeak {
		t.Errorf("A100 FP8 peak %g, BF16 %g: the A100 has no FP8 tensor cores", a8.linearPeak, a16.linearPeak)
	}
}

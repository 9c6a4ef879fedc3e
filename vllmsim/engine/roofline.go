package engine

import (
	"fmt"
	"math"
	"time"
)

// StepShape is one engine step's batch as the step-time model sees it.
type StepShape struct {
	Tokens        int // tokens computed: prompt chunks, and one per decoding sequence
	Seqs          int // sequences in the step
	Sampled       int // sequences that sample a token: decodes, and prompts the step finishes
	ContextTokens int // tokens already in the KV cache that the step's sequences attend to
	// PrefillPairs counts the (query, key) pairs of prompt chunks: a chunk
	// of n tokens after c cached ones attends to n·c + n(n+1)/2 of them.
	PrefillPairs int64
}

// Efficiency holds the few factors that turn published peaks into the
// times vLLM achieves. They were calibrated once, together, against the
// published figures listed in docs/simulator.md; see CalibratedEfficiency.
type Efficiency struct {
	Bandwidth float64 // achieved fraction of HBM bandwidth reading weights and KV
	Compute   float64 // achieved fraction of dense peak in the layers' GEMMs
	Attention float64 // achieved fraction of 16-bit peak in prompt attention
	Link      float64 // achieved fraction of link bandwidth in all-reduce
	// StepCPU is the engine's CPU time per step (scheduling, preparing
	// inputs, sampling, output processing), SeqCPU what each scheduled
	// sequence adds to it.
	StepCPU, SeqCPU time.Duration
}

// CalibratedEfficiency is the calibration in force.
//   - Bandwidth 0.8: STREAM-like copies on an H100 sustain 2.65–2.75 of its
//     3.35 TB/s; with it and StepCPU, a Llama-3.1-8B decode step at batch 8
//     takes 7.8 ms on H100 and 6.0 on H200, as vLLM's CI latency test
//     measures (7.8 and 6.5 ms).
//   - Compute 0.6: prompt batches of about 2,000 tokens took 48 ms a step on
//     one H100 in LambdaLabs' 320-prompt run of Llama-3-8B (the steps of its
//     time-to-first-token staircase), 58% of the dense BF16 peak with the
//     CPU time included.
//   - Attention 0.5: FlashAttention's forward pass on Hopper reaches 50–75%
//     of peak on long sequences; prompt attention is a small share of the
//     calibration workloads, so this is an estimate, not a fit.
//   - Link 0.7: NCCL and vLLM's custom all-reduce reach 60–80% of NVLink's
//     bandwidth on the message sizes of a step; estimate.
//   - StepCPU 1.8 ms and SeqCPU 4 µs: within the 0.5–2 ms per step that
//     inference-sim's authors measured for vLLM's scheduler, and what the
//     CI latency test leaves once the weights are read.
var CalibratedEfficiency = Efficiency{Bandwidth: 0.8, Compute: 0.6, Attention: 0.5, Link: 0.7,
	StepCPU: 1800 * time.Microsecond, SeqCPU: 4 * time.Microsecond}

// V0SeqCPU is what vLLM's V0 engine (vLLM 0.6) spent on each scheduled
// sequence of a step, in place of V1's SeqCPU: it prepared inputs, built
// sampling metadata and processed outputs sequence by sequence in Python
// within the step loop, a cost V1 was built to remove. Fitted, as the one
// V0 factor, to the median TPOTs of LambdaLabs' bursts of 10, 80 and 320
// prompts on one H100 (least squares of the log ratios: 7.56, 9.94 and
// 20.0 ms published; 7.6, 11.1 and 19.0 simulated); with V1's 4 µs the
// 320-prompt burst's TPOT came out 24% short.
const V0SeqCPU = 24 * time.Microsecond

// V0Efficiency is CalibratedEfficiency with V0's cost per sequence.
func V0Efficiency() Efficiency {
	e := CalibratedEfficiency
	e.SeqCPU = V0SeqCPU
	return e
}

// Roofline is the first-principles step-time model of a model served on
// TP GPUs. A step costs the sum of
//
//	layers' GEMMs  max(weight bytes read ÷ bandwidth, FLOPs ÷ peak)
//	LM head        the same, over the sequences that sample
//	attention      cached KV bytes read ÷ bandwidth + prompt-attention FLOPs ÷ peak
//	all-reduce     2 per layer when TP > 1: latency + 2(TP−1)/TP × activation bytes ÷ link bandwidth
//	CPU            StepCPU + SeqCPU × sequences
//
// per GPU (weights, heads and KV heads are split across the group), and,
// where kernel times were measured (Llama-3.1-8B and 70B on one H200), no
// less than the step's GEMMs, LM head and decode attention took there
// (kernelfloor.go).
type Roofline struct {
	GPU     GPU
	Model   ModelShape
	TP      int
	KVBytes float64 // bytes per cached K or V element: 2, or 1 for an FP8 KV cache
	Eff     Efficiency

	floor *kernelFloor // the measured kernels' times, where known (kernelfloor.go)

	bw, linearPeak, headPeak, attnPeak    float64
	denseBytes, expertBytes, linearFLOPs  float64
	headBytes, headFLOPs, kvBytesPerToken float64
	attnFLOPsPerPair, allReduceBytes      float64
}

// NewRoofline builds the model of m on tp GPUs g with a KV cache of
// kvBytes per element.
func NewRoofline(g GPU, m ModelShape, tp int, kvBytes float64, eff Efficiency) (*Roofline, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	if tp < 1 || m.Heads%tp != 0 {
		return nil, fmt.Errorf("vllmsim: %d attention heads of %s cannot be split across --tensor-parallel-size %d", m.Heads, m.Name, tp)
	}
	r := &Roofline{GPU: g, Model: m, TP: tp, KVBytes: kvBytes, Eff: eff}
	t, wb := float64(tp), float64(m.WeightBits)/8
	r.bw = g.HBMBandwidth * eff.Bandwidth
	r.linearPeak = g.PeakBF16 * eff.Compute
	if m.WeightBits == 8 {
		r.linearPeak = g.PeakFP8 * eff.Compute // W8A8: activations are quantized too
	}
	r.headPeak = g.PeakBF16 * eff.Compute
	r.attnPeak = g.PeakBF16 * eff.Attention
	r.denseBytes = float64(m.Layers) * m.layerParams() * wb / t
	r.expertBytes = m.expertParams() * wb / t
	r.linearFLOPs = 2 * m.activeParams() / t
	r.headBytes = 2 * float64(m.Vocab*m.Hidden) / t
	r.headFLOPs = 2 * float64(m.Vocab*m.Hidden) / t
	r.kvBytesPerToken = m.KVBytesPerToken(tp, kvBytes)
	r.attnFLOPsPerPair = 4 * float64(m.Heads/tp*m.HeadDim*m.Layers) // QKᵀ and PV, 2 FLOPs a multiply-add
	r.allReduceBytes = 2 * float64(m.Hidden)                        // one 16-bit activation row a token
	r.floor = kernelFloorFor(g, m, tp)
	return r, nil
}

// expertsTouched is the expected number of distinct experts a layer runs
// for tokens tokens, each routed to k of E at random: E(1 − (1 − k/E)^tokens).
func (r *Roofline) expertsTouched(tokens float64) float64 {
	e, k := float64(r.Model.Experts), float64(r.Model.ActiveExperts)
	if e == 0 {
		return 0
	}
	return e * (1 - math.Pow(1-k/e, tokens))
}

// Parts returns the step's modelled time split into its terms, in seconds.
func (r *Roofline) Parts(s StepShape) (linear, head, attn, comm, cpu float64) {
	if s.Tokens == 0 && s.Seqs == 0 {
		return
	}
	t := float64(s.Tokens)
	bytes := r.denseBytes + float64(r.Model.Layers)*r.expertsTouched(t)*r.expertBytes
	linear = math.Max(bytes/r.bw, t*r.linearFLOPs/r.linearPeak)
	if s.Sampled > 0 {
		head = math.Max(r.headBytes/r.bw, float64(s.Sampled)*r.headFLOPs/r.headPeak)
	}
	kvRead := float64(s.ContextTokens) * r.kvBytesPerToken
	attn = kvRead/r.bw + float64(s.PrefillPairs)*r.attnFLOPsPerPair/r.attnPeak
	if r.TP > 1 {
		tp := float64(r.TP)
		per := r.GPU.AllReduceLatency + 2*(tp-1)/tp*t*r.allReduceBytes/(r.GPU.LinkBandwidth*r.Eff.Link)
		comm = 2 * float64(r.Model.Layers) * per
	}
	cpu = (r.Eff.StepCPU + time.Duration(s.Seqs)*r.Eff.SeqCPU).Seconds()
	if r.floor != nil {
		// No faster than the measured kernels (kernelfloor.go); the
		// shortfall is counted as the GEMMs', where it lies.
		if k := r.floor.kernels(r.Model.Layers, t, float64(s.Sampled), kvRead); k > linear+head+attn+comm+cpu {
			linear += k - (linear + head + attn + comm + cpu)
		}
	}
	return
}

// StepTime is the modelled time of a step.
func (r *Roofline) StepTime(s StepShape) time.Duration {
	l, h, a, c, p := r.Parts(s)
	return time.Duration((l + h + a + c + p) * float64(time.Second))
}

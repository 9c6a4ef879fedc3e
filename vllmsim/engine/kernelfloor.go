package engine

// The kernel floor: what a step's GEMMs, LM head and decode attention took
// on a real H200 (SXM, PyTorch 2.11 with CUDA 13, CUDA events, random data;
// docs/simulator.md, "The kernel floor"). A vLLM step cannot be faster than
// the kernels it is made of, so for the shapes measured (Llama-3.1-8B and
// 70B, 16-bit and FP8 W8A8 weights, one GPU) a step the roofline would
// predict faster than them takes their time. The floor bounds the whole
// step, not the linear term alone: the roofline's CPU time, which vLLM's
// async scheduling overlaps with the GPU's, pays for the gap between the
// calibrated bandwidth and the measured GEMMs at small batches, and held
// figures (a published 70B FP8 TPOT on the H200) stay where they were.
// Between measured sizes the floor is interpolated linearly; past the
// largest it grows in proportion, as the largest sizes do; below the
// smallest attention read it shrinks in proportion, since no launch floor
// was measured there.

// point is a measured size and its time in seconds.
type point struct{ x, y float64 }

// kernelFloor holds one model's measured times on the H200.
type kernelFloor struct {
	linear []point // rows → all linear layers of one layer (QKV, O, gate-up, down)
	head   []point // sampled rows → the LM head
	attn   []point // KV bytes read in one layer → one layer's decode attention
}

// at is the floor at x: linear between points, proportional outside them
// (above the last; below the first when it starts at more than one).
func at(pts []point, x float64) float64 {
	first, last := pts[0], pts[len(pts)-1]
	switch {
	case x >= last.x:
		return last.y * x / last.x
	case x <= first.x:
		if first.x <= 1 {
			return first.y
		}
		return first.y * x / first.x
	}
	for i := 1; i < len(pts); i++ {
		if a, b := pts[i-1], pts[i]; x <= b.x {
			return a.y + (b.y-a.y)*(x-a.x)/(b.x-a.x)
		}
	}
	return last.y
}

func us(xs []float64, ys ...float64) []point {
	out := make([]point, len(xs))
	for i := range xs {
		out[i] = point{xs[i], ys[i] * 1e-6}
	}
	return out
}

var (
	gemmRows = []float64{1, 8, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}
	headRows = []float64{1, 8, 64, 256}
	// KV bytes a layer reads for 8×1024, 64×1024, 64×4096 and 256×2048
	// cached tokens: 8 KV heads × 128 × 2 (K and V) × 2 bytes a token,
	// the same for both models.
	attnBytes = []float64{8 * 1024 * 4096, 64 * 1024 * 4096, 64 * 4096 * 4096, 256 * 2048 * 4096}

	h200Llama8BHead  = us(headRows, 241.0, 247.3, 279.8, 375.6)
	h200Llama70BHead = us(headRows, 501.7, 487.5, 541.9, 749.1)
	h200Llama8BAttn  = us(attnBytes, 26.8, 67.6, 245.5, 478.6)
	h200Llama70BAttn = us(attnBytes, 44.0, 68.8, 245.0, 479.7)

	// h200Floors is keyed by the model's hidden size and weight bits.
	h200Floors = map[[2]int]kernelFloor{
		{4096, 16}: {us(gemmRows, 137.6, 125.7, 130.2, 134.3, 139.7, 188.2, 300.4, 577.3, 1134.5, 2488.4, 4944.9), h200Llama8BHead, h200Llama8BAttn},
		{4096, 8}:  {us(gemmRows, 120.4, 133.2, 139.0, 114.8, 115.7, 125.4, 187.0, 327.8, 639.1, 1264.0, 2773.5), h200Llama8BHead, h200Llama8BAttn},
		{8192, 16}: {us(gemmRows, 412.6, 419.5, 422.8, 432.8, 454.9, 604.5, 1134.1, 2410.9, 5145.4, 10062.1, 21026.2), h200Llama70BHead, h200Llama70BAttn},
		{8192, 8}:  {us(gemmRows, 251.6, 244.8, 250.5, 260.3, 260.1, 354.1, 645.6, 1257.3, 2630.7, 5345.8, 10757.5), h200Llama70BHead, h200Llama70BAttn},
	}
)

// kernelFloorFor returns the measured floor of m on tp GPUs g, or nil when
// none was measured: only Llama-3.1-8B and 70B's shapes, dense, with
// 16-bit or FP8 weights, on one H200.
func kernelFloorFor(g GPU, m ModelShape, tp int) *kernelFloor {
	if g.Name != "h200" || tp != 1 || m.Experts != 0 || m.Vocab != 128256 || m.KVHeads != 8 || m.HeadDim != 128 {
		return nil
	}
	switch {
	case m.Hidden == 4096 && m.Intermediate == 14336 && m.Heads == 32 && m.Layers == 32:
	case m.Hidden == 8192 && m.Intermediate == 28672 && m.Heads == 64 && m.Layers == 80:
	default:
		return nil
	}
	f, ok := h200Floors[[2]int{m.Hidden, m.WeightBits}]
	if !ok {
		return nil
	}
	return &f
}

// kernels is the measured time, in seconds, of a step's layers linear
// GEMMs at rows rows, its LM head over sampled rows and its decode
// attention reading kvRead bytes of cached KV over all layers.
func (f *kernelFloor) kernels(layers int, rows, sampled, kvRead float64) float64 {
	l := float64(layers)
	k := l * at(f.linear, rows)
	if sampled > 0 {
		k += at(f.head, sampled)
	}
	if kvRead > 0 {
		k += l * at(f.attn, kvRead/l)
	}
	return k
}

package engine

import (
	"fmt"
	"testing"
	"time"
)

// The H200 kernel times of docs/simulator.md, "The kernel floor", as
// measured (µs), kept apart from the floor's own copy so that an edit to
// either shows.
var (
	h200Rows   = []int{1, 8, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}
	h200Linear = map[string][]float64{ // all linear layers of one layer
		"8b bf16":  {137.6, 125.7, 130.2, 134.3, 139.7, 188.2, 300.4, 577.3, 1134.5, 2488.4, 4944.9},
		"8b fp8":   {120.4, 133.2, 139.0, 114.8, 115.7, 125.4, 187.0, 327.8, 639.1, 1264.0, 2773.5},
		"70b bf16": {412.6, 419.5, 422.8, 432.8, 454.9, 604.5, 1134.1, 2410.9, 5145.4, 10062.1, 21026.2},
		"70b fp8":  {251.6, 244.8, 250.5, 260.3, 260.1, 354.1, 645.6, 1257.3, 2630.7, 5345.8, 10757.5},
	}
	h200HeadRows = []int{1, 8, 64, 256}
	h200Head     = map[string][]float64{"8b": {241.0, 247.3, 279.8, 375.6}, "70b": {501.7, 487.5, 541.9, 749.1}}
	h200Attn     = []struct {
		seqs, ctx int
		us        map[string]float64 // one layer
	}{
		{8, 1024, map[string]float64{"8b": 26.8, "70b": 44.0}},
		{64, 1024, map[string]float64{"8b": 67.6, "70b": 68.8}},
		{64, 4096, map[string]float64{"8b": 245.5, "70b": 245.0}},
		{256, 2048, map[string]float64{"8b": 478.6, "70b": 479.7}},
	}
)

func h200Model(t *testing.T, size, precision string) *Roofline {
	t.Helper()
	name := map[string]string{"8b": "meta-llama/Llama-3.1-8B-Instruct", "70b": "meta-llama/Llama-3.1-70B-Instruct"}[size]
	r := roofline(t, "h200", name, 1, 2)
	if precision == "fp8" {
		m := r.Model
		m.WeightBits = 8
		g, _ := LookupGPU("h200")
		var err error
		if r, err = NewRoofline(g, m, 1, 2, CalibratedEfficiency); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func usec(v float64) time.Duration { return time.Duration(v * float64(time.Microsecond)) }

// The step-time model never predicts a step faster than its GEMMs, LM head
// and decode attention took on a real H200: a step of n rows costs at least
// the layers' linear GEMMs at n rows and the LM head over the rows that
// sample (n decodes up to 256 rows, one finishing prompt beyond), and a
// decode step of n sequences over c cached tokens each at least those and
// the layers' attention over them.
func TestStepsNoFasterThanH200Kernels(t *testing.T) {
	for key, linear := range h200Linear {
		var size, precision string
		fmt.Sscan(key, &size, &precision)
		r := h200Model(t, size, precision)
		layers := float64(r.Model.Layers)
		for i, n := range h200Rows {
			s := StepShape{Tokens: n, Seqs: 1, Sampled: 1}
			if n <= 256 { // a decode batch
				s.Seqs, s.Sampled = n, n
			}
			want := layers * linear[i]
			if j := indexOf(h200HeadRows, s.Sampled); j >= 0 {
				want += h200Head[size][j]
			}
			if got := r.StepTime(s); got < usec(want)-time.Nanosecond { // StepTime truncates to the nanosecond
				t.Errorf("%s, %d rows: step %v under its kernels' %v", key, n, got, usec(want))
			}
		}
		for _, a := range h200Attn {
			s := StepShape{Tokens: a.seqs, Seqs: a.seqs, Sampled: a.seqs, ContextTokens: a.seqs * a.ctx}
			gemm := linear[indexOf(h200Rows, a.seqs)] // 8, 64 and 256 rows were measured
			head := h200Head[size][indexOf(h200HeadRows, a.seqs)]
			want := usec(layers*(a.us[size]+gemm) + head)
			if got := r.StepTime(s); got < want-time.Nanosecond {
				t.Errorf("%s, %d × %d: step %v under its kernels' %v", key, a.seqs, a.ctx, got, want)
			}
		}
	}
}

// The floor leaves alone what it has no measurement of: another GPU,
// tensor parallelism, 4-bit weights.
func TestKernelFloorOnlyWhereMeasured(t *testing.T) {
	if r := roofline(t, "h100", "meta-llama/Llama-3.1-8B-Instruct", 1, 2); r.floor != nil {
		t.Error("a floor on the H100")
	}
	if r := roofline(t, "h200", "meta-llama/Llama-3.1-70B-Instruct", 2, 2); r.floor != nil {
		t.Error("a floor with tensor parallelism")
	}
	if r := h200Model(t, "8b", "bf16"); r.floor == nil {
		t.Error("no floor for Llama-3.1-8B on the H200")
	}
}

func indexOf(xs []int, x int) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

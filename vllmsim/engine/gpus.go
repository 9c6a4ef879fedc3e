package engine

import (
	"fmt"
	"sort"
	"strings"
)

// GPU is one accelerator's published capacities, as the step-time model
// uses them. Peaks are dense (no structured sparsity) tensor-core rates.
type GPU struct {
	Name string
	// PeakBF16 and PeakFP8 are FLOP/s. PeakFP8 is PeakBF16 on a GPU
	// without FP8 tensor cores, where vLLM runs FP8 checkpoints as
	// weight-only (W8A16) kernels: weights are read at one byte, the
	// arithmetic runs at the 16-bit rate.
	PeakBF16, PeakFP8 float64
	HBMBandwidth      float64 // bytes/s
	// Memory is the device memory as CUDA (or ROCm) reports it to vLLM,
	// a little under the marketed capacity; vLLM multiplies it by
	// --gpu-memory-utilization.
	Memory float64 // bytes
	// LinkBandwidth is the per-direction bandwidth of one GPU's links to
	// its peers (NVLink, Infinity Fabric, or PCIe where there is neither),
	// which bounds a tensor-parallel all-reduce.
	LinkBandwidth float64 // bytes/s
	// AllReduceLatency is the fixed time of one small all-reduce across
	// the tensor-parallel group, in seconds.
	AllReduceLatency float64
}

const (
	tera = 1e12
	giga = 1e9
	gib  = 1 << 30
)

// gpus are the GPUs the simulator knows, by lower-case name. Sources are the
// vendors' datasheets (dense figures: NVIDIA's tables list "with sparsity"
// values that are twice these); memory as reported at vLLM start-up
// ("total_gpu_memory" in its memory-profiling log) where such a log was
// found, else the total the driver reports less about 0.5 GiB, as for those.
var gpus = map[string]GPU{
	// A100 SXM4 80GB: 312 TFLOPS BF16, no FP8, 2,039 GB/s HBM2e, NVLink 3
	// 600 GB/s (both directions); 79.15 GiB in vLLM's logs.
	"a100": {Name: "a100", PeakBF16: 312 * tera, PeakFP8: 312 * tera, HBMBandwidth: 2039 * giga,
		Memory: 79.15 * gib, LinkBandwidth: 300 * giga, AllReduceLatency: 10e-6},
	// H100 SXM5 80GB: 989 TFLOPS BF16, 1,979 FP8, 3.35 TB/s HBM3, NVLink 4
	// 900 GB/s; vLLM logs total_gpu_memory 79.11 GiB.
	"h100": {Name: "h100", PeakBF16: 989 * tera, PeakFP8: 1979 * tera, HBMBandwidth: 3350 * giga,
		Memory: 79.11 * gib, LinkBandwidth: 450 * giga, AllReduceLatency: 8e-6},
	// H200 SXM 141GB: the H100's compute, 4.8 TB/s HBM3e; vLLM logs
	// total_gpu_memory 139.81 GiB.
	"h200": {Name: "h200", PeakBF16: 989 * tera, PeakFP8: 1979 * tera, HBMBandwidth: 4800 * giga,
		Memory: 139.81 * gib, LinkBandwidth: 450 * giga, AllReduceLatency: 8e-6},
	// B200 (HGX, 180 GB; nvidia-smi 183,359 MiB): 2.25 PFLOPS BF16, 4.5
	// FP8, 8 TB/s HBM3e, NVLink 5 1.8 TB/s.
	"b200": {Name: "b200", PeakBF16: 2250 * tera, PeakFP8: 4500 * tera, HBMBandwidth: 8000 * giga,
		Memory: 178.5 * gib, LinkBandwidth: 900 * giga, AllReduceLatency: 8e-6},
	// L40S 48 GB GDDR6: 362 TFLOPS BF16, 733 FP8, 864 GB/s, no NVLink: PCIe
	// Gen4 x16, 32 GB/s each way.
	"l40s": {Name: "l40s", PeakBF16: 362 * tera, PeakFP8: 733 * tera, HBMBandwidth: 864 * giga,
		Memory: 44.4 * gib, LinkBandwidth: 32 * giga, AllReduceLatency: 30e-6},
	// MI300X 192 GB: 1,307 TFLOPS BF16, 2,615 FP8, 5.3 TB/s HBM3, Infinity
	// Fabric 896 GB/s aggregate (both directions).
	"mi300x": {Name: "mi300x", PeakBF16: 1307 * tera, PeakFP8: 2615 * tera, HBMBandwidth: 5300 * giga,
		Memory: 191.5 * gib, LinkBandwidth: 448 * giga, AllReduceLatency: 12e-6},
}

// DefaultGPU is the GPU simulated when none is named (--gpu).
const DefaultGPU = "h100"

// LookupGPU returns the named GPU ("H100", "h100-sxm" and "NVIDIA H100"
// all name the H100).
func LookupGPU(name string) (GPU, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimPrefix(strings.TrimPrefix(n, "nvidia "), "amd ")
	if g, ok := gpus[n]; ok {
		return g, nil
	}
	for key, g := range gpus {
		if strings.HasPrefix(n, key+"-") || strings.HasPrefix(n, key+" ") {
			return g, nil
		}
	}
	return GPU{}, fmt.Errorf("vllmsim: unknown GPU %q (known: %s)", name, strings.Join(GPUNames(), ", "))
}

// GPUNames lists the known GPUs, sorted.
func GPUNames() []string {
	names := make([]string, 0, len(gpus))
	for n := range gpus {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LargeBatchDefaults reports whether vLLM serves with its larger batch
// defaults on g: device memory of at least 70 GiB and not an A100
// (get_batch_defaults in vllm/engine/arg_utils.py).
func (g GPU) LargeBatchDefaults() bool {
	return g.Memory >= 70*gib && g.Name != "a100"
}

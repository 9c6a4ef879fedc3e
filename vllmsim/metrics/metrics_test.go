package metrics

import (
	"strings"
	"testing"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

func gather(t *testing.T, m *Metrics) map[string]map[string]float64 {
	t.Helper()
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]float64{}
	for _, f := range fams {
		series := map[string]float64{}
		for _, s := range f.GetMetric() {
			var labels []string
			for _, l := range s.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			series[strings.Join(labels, ",")] = s.GetCounter().GetValue() + s.GetGauge().GetValue()
		}
		out[f.GetName()] = series
	}
	return out
}

// Every family of Names is registered; each rejection reason has its
// series from the start, and Rejected counts in its own.
func TestNewRegistersEveryNameAndTheRejectReasons(t *testing.T) {
	m := New(ServerConfig{Model: "m", MaxModelLen: 100, BlockSize: 16, NumGPUBlocks: 10, CacheDType: "auto",
		GPUMemoryUtilization: 0.9, RejectReasons: []string{"a", "b"}}, func() engine.Stats { return engine.Stats{Waiting: 3} })
	m.Rejected("a")
	got := gather(t, m)
	for _, name := range Names {
		if got[name] == nil {
			t.Errorf("%s is not registered", name)
		}
	}
	rej := got["vllm:admission_rejections_total"]
	if rej["model_name=m,reason=a"] != 1 || rej["model_name=m,reason=b"] != 0 || len(rej) != 2 {
		t.Fatalf("rejections %v, want a=1 and b=0", rej)
	}
	if w := got["vllm:num_requests_waiting"]["engine=0,model_name=m"]; w != 3 {
		t.Fatalf("waiting %v, want the engine's 3", w)
	}
}

// vllm:cache_config_info writes Python's words: None for no override,
// True and False for prefix caching.
func TestCacheLabelsAreVLLMs(t *testing.T) {
	c := ServerConfig{BlockSize: 16, NumGPUBlocks: 2000, CacheDType: "fp8", GPUMemoryUtilization: 0.85}
	l := c.cacheLabels()
	if l["num_gpu_blocks_override"] != "None" || l["enable_prefix_caching"] != "False" || l["cache_dtype"] != "fp8" ||
		l["gpu_memory_utilization"] != "0.85" || l["num_gpu_blocks"] != "2000" {
		t.Fatalf("labels %v", l)
	}
	c.NumGPUBlocksOverride, c.PrefixCaching = 500, true
	if l := c.cacheLabels(); l["num_gpu_blocks_override"] != "500" || l["enable_prefix_caching"] != "True" {
		t.Fatalf("labels %v", l)
	}
}

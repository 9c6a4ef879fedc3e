package vllmsim

import (
	"testing"
)

// The request phases vLLM reports, against steps of a known length: a
// request of three tokens alone on a server whose every step lasts 150 ms
// is scheduled in its first step, has its first token after one step
// (prefill), its last two steps later (decode), three in all (inference).
func TestMetricsRequestPhases(t *testing.T) {
	srv := start(t, Config{Profile: slowSteps, NumGPUBlocks: 2000, MaxModelLen: 4096})
	if st, raw := postJSON(t, srv.URL+"/v1/completions", map[string]any{"prompt": textPrompt("p", 40), "max_tokens": 3, "ignore_eos": true}); st != 200 {
		t.Fatalf("%d %s", st, raw)
	}
	fams := scrape(t, srv.URL)
	for name, want := range map[string]float64{
		"vllm:request_prefill_time_seconds": 0.15, "vllm:request_decode_time_seconds": 0.30,
		"vllm:request_inference_time_seconds": 0.45,
	} {
		f := fams[name]
		if f == nil || len(f.Metric) != 1 || f.Metric[0].GetHistogram().GetSampleCount() != 1 {
			t.Fatalf("%s: %v", name, f)
		}
		// The loop's timer overshoots a little, never undershoots.
		if got := f.Metric[0].GetHistogram().GetSampleSum(); got < want-0.005 || got > want+0.05 {
			t.Errorf("%s = %.3f s, want %.2f s", name, got, want)
		}
	}
	info := fams["vllm:cache_config_info"]
	if info == nil || len(info.Metric) != 1 {
		t.Fatalf("cache_config_info %v", info)
	}
	for label, want := range map[string]string{"num_gpu_blocks": "2000", "block_size": "16", "engine": "0", "enable_prefix_caching": "True"} {
		if !hasLabel(info.Metric[0], label, want) {
			t.Errorf("cache_config_info lacks %s=%q: %v", label, want, info.Metric[0].GetLabel())
		}
	}
	if got := info.Metric[0].GetGauge().GetValue(); got != 1 {
		t.Errorf("cache_config_info = %v, want 1", got)
	}
}

// Prompt tokens found in the prefix cache are counted in
// vllm:prompt_tokens_cached: the same 64-token prompt twice finds its four
// full blocks but the last the second time (vLLM computes at least the
// prompt's last token).
func TestMetricsPromptTokensCached(t *testing.T) {
	srv := start(t, Config{ProfileName: "instant"})
	for range 2 {
		if st, raw := postJSON(t, srv.URL+"/v1/completions", map[string]any{"prompt": textPrompt("q", 64), "max_tokens": 1}); st != 200 {
			t.Fatalf("%d %s", st, raw)
		}
	}
	fams := scrape(t, srv.URL)
	got := metricValue(fams, "vllm:prompt_tokens_cached_total")
	if got != 48 {
		t.Fatalf("cached prompt tokens %v, want 48", got)
	}
	if q := metricValue(fams, "vllm:prompt_tokens_total"); q != 128 {
		t.Fatalf("prompt tokens %v, want 128", q)
	}
}

package verdict

import (
	"fmt"

	"github.com/llmslo/llmslo/load/report"
)

// Binding constraint kinds: what limits a server at its knee, each with the
// vLLM setting that moves it (docs/tuning.md).
const (
	BindMaxNumSeqs          = "max_num_seqs"
	BindKVCache             = "kv_cache"
	BindMaxNumBatchedTokens = "max_num_batched_tokens"
	BindCompute             = "compute"
	BindClient              = "client"
	// BindAdmission is the server's own admission limit
	// (--max-num-queued-reqs, or --max-num-queued-tokens): it refused
	// requests with 503s before anything else bound.
	BindAdmission = "admission"
)

// kvFull is the KV-cache use from which the cache counts as full: vLLM's
// allocator preempts before the last blocks are taken.
const kvFull = 0.9

// Binding names what binds a step that failed (or sits at the knee), from
// the server's metrics and the client's own figures, in this order: a late
// client first (nothing else can be read from its figures), then the
// server's own admission limit (shed requests, HTTP 503, that broke the
// error-rate SLO: the client sees them, metrics or not), then the KV
// cache, the batch-size cap, chunked prefill stalling decodes, and compute
// when none of those shows. maxNumSeqs is the server's max_num_seqs when
// known (0: its running plateau stands in). It returns nil for a passing
// step.
func Binding(s *report.StepReport, maxNumSeqs int) *report.Binding {
	if s.Verdict == report.VerdictPass {
		return nil
	}
	srv := s.Server
	fig := map[string]float64{
		"max_running": srv.MaxRunning, "running_at_max_share": srv.RunningAtMaxShare, "max_waiting": srv.MaxWaiting,
		"kv_cache_usage_max": srv.KVCacheUsageMax, "preemptions": srv.Preemptions, "tpot_p50_ms": s.TPOT.P50,
	}
	if maxNumSeqs > 0 {
		fig["max_num_seqs"] = float64(maxNumSeqs)
	}
	b := func(kind, evidence, flag string) *report.Binding {
		return &report.Binding{Kind: kind, Evidence: evidence, Flag: flag, Figures: fig}
	}
	if s.HasHazard(HazardClientSaturation) {
		return b(BindClient, "the client could not keep its schedule (client_saturation): the server was not what stopped it",
			"give the load generator more cores, or shard the load over several clients (--shard)")
	}
	if s.Requests.Shed > 0 && failed(s, report.MetricErrorRate) {
		fig["shed"] = float64(s.Requests.Shed)
		return b(BindAdmission, fmt.Sprintf("the server's admission control refused %d of %d requests (HTTP 503) while up to %.0f ran and %.0f waited: "+
			"its own limit on the requests in flight binds before its compute does", s.Requests.Shed, s.Requests.Judged(), srv.MaxRunning, srv.MaxWaiting),
			"raise --max-num-queued-reqs (or --max-num-queued-tokens) if the SLOs hold with more in flight, or add capacity (more replicas)")
	}
	if !srv.MetricsAvailable {
		if failed(s, report.MetricITL) && !failed(s, report.MetricTTFT) {
			return b(BindMaxNumBatchedTokens, "ITL failed while TTFT held (no server metrics to say more)", "--max-num-batched-tokens")
		}
		return nil // without the server's metrics, nothing more can be said
	}
	plateau := srv.MaxRunning
	if maxNumSeqs > 0 {
		plateau = float64(maxNumSeqs)
	}
	atCap := srv.MaxRunning >= plateau-0.5 && srv.RunningAtMaxShare >= 0.5
	switch {
	case srv.KVCacheUsageMax >= kvFull && (srv.Preemptions > 0 || (srv.MaxWaiting > 0 && !atCap)):
		return b(BindKVCache, fmt.Sprintf("the KV cache was %.0f%% full with %.0f preemptions and up to %.0f requests waiting while %.0f ran",
			100*srv.KVCacheUsageMax, srv.Preemptions, srv.MaxWaiting, srv.MaxRunning),
			"more KV blocks: raise --gpu-memory-utilization, use --kv-cache-dtype fp8, a shorter --max-model-len, or more GPUs (--tensor-parallel-size)")
	case atCap && srv.KVCacheUsageMax < kvFull && (srv.MaxWaiting > 0 || maxNumSeqs > 0):
		// At a known cap most of the step, a queue follows even when the
		// once-a-second samples missed it; at an inferred plateau, only a
		// seen queue says the plateau is a cap and not the arrivals.
		return b(BindMaxNumSeqs, fmt.Sprintf("%.0f requests ran at once for %.0f%% of the step (the cap) while up to %.0f waited and the KV cache was %.0f%% full at most",
			srv.MaxRunning, 100*srv.RunningAtMaxShare, srv.MaxWaiting, 100*srv.KVCacheUsageMax),
			"raise --max-num-seqs (or --performance-mode throughput)")
	case failed(s, report.MetricITL) && !failed(s, report.MetricTTFT):
		return b(BindMaxNumBatchedTokens, "ITL's tail failed while TTFT held: prefill chunks share steps with decodes and stall them",
			"lower --max-num-batched-tokens for a shorter ITL tail (or raise it for faster prefills), or --performance-mode interactivity")
	}
	return b(BindCompute, fmt.Sprintf("no queue at a batch cap, no full KV cache: steps slowed as the batch grew (TPOT p50 %.1f ms with up to %.0f running)",
		s.TPOT.P50, srv.MaxRunning),
		"more compute per request: --tensor-parallel-size, --quantization fp8, or a faster GPU")
}

// failed reports whether an SLO on the metric failed in the step.
func failed(s *report.StepReport, m report.Metric) bool {
	for _, r := range s.SLO {
		if r.Metric == string(m) && !r.Pass {
			return true
		}
	}
	return false
}

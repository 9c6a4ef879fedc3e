package vllmsim

import (
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
	"github.com/prometheus/client_golang/prometheus"
)

// Histogram bucket boundaries as vLLM V1 declares them
// (vllm/v1/metrics/loggers.py).
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
		0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}
	itlBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75,
		1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0}
	requestLatencyBuckets = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0,
		20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}
)

// build125Buckets is vLLM's build_1_2_5_buckets: 1, 2, 5, 10, 20, 50, …
// up to max.
func build125Buckets(max int) []float64 {
	var out []float64
	for exp := 1; ; exp *= 10 {
		for _, m := range []int{1, 2, 5} {
			v := m * exp
			if v > max {
				return out
			}
			out = append(out, float64(v))
		}
	}
}

// MetricNames lists every metric family /metrics serves.
var MetricNames = []string{
	"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
	"vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total", "vllm:num_preemptions_total",
	"vllm:prompt_tokens_total", "vllm:generation_tokens_total", "vllm:request_success_total",
	"vllm:time_to_first_token_seconds", "vllm:inter_token_latency_seconds",
	"vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds",
	"vllm:request_prompt_tokens", "vllm:request_generation_tokens", "vllm:admission_rejections_total",
}

// metrics holds the server's Prometheus collectors, registered on a
// registry of its own. Gauges and engine totals are read from the engine at
// scrape time; request timings are observed by the engine loop as tokens
// are produced.
type metrics struct {
	reg          *prometheus.Registry
	promptTokens prometheus.Counter
	success      *prometheus.CounterVec
	ttft, itl    prometheus.Histogram
	e2e, queue   prometheus.Histogram
	promptHist   prometheus.Histogram
	genHist      prometheus.Histogram
	rejections   *prometheus.CounterVec
}

func newMetrics(model string, maxModelLen int, stats func() engine.Stats) *metrics {
	labels := prometheus.Labels{"model_name": model}
	m := &metrics{reg: prometheus.NewRegistry()}
	gauge := func(name, help string, f func(engine.Stats) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: labels},
			func() float64 { return f(stats()) })
	}
	counter := func(name, help string, f func(engine.Stats) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels},
			func() float64 { return f(stats()) })
	}
	hist := func(name, help string, buckets []float64) prometheus.Histogram {
		return prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, ConstLabels: labels, Buckets: buckets})
	}
	m.promptTokens = prometheus.NewCounter(prometheus.CounterOpts{Name: "vllm:prompt_tokens_total",
		Help: "Number of prefill tokens processed.", ConstLabels: labels})
	m.success = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vllm:request_success_total",
		Help: "Count of finished requests, by finish reason.", ConstLabels: labels}, []string{"finished_reason"})
	m.rejections = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vllm:admission_rejections_total",
		Help: "Requests refused by admission control, by the limit that refused them.", ConstLabels: labels}, []string{"reason"})
	m.ttft = hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds (from arrival).", ttftBuckets)
	m.itl = hist("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", itlBuckets)
	m.e2e = hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", requestLatencyBuckets)
	m.queue = hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", requestLatencyBuckets)
	m.promptHist = hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", build125Buckets(maxModelLen))
	m.genHist = hist("vllm:request_generation_tokens", "Number of generation tokens processed.", build125Buckets(maxModelLen))
	m.reg.MustRegister(
		gauge("vllm:num_requests_running", "Number of requests in model execution batches.",
			func(s engine.Stats) float64 { return float64(s.Running) }),
		gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.",
			func(s engine.Stats) float64 { return float64(s.Waiting) }),
		gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.",
			func(s engine.Stats) float64 { return s.KVUsage }),
		// New requests only: a preempted request's lookup when it resumes
		// is not exported, as in vLLM (see EngineStats).
		counter("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.",
			func(s engine.Stats) float64 { return float64(s.PrefixQueryTokens) }),
		counter("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.",
			func(s engine.Stats) float64 { return float64(s.PrefixHitTokens) }),
		counter("vllm:num_preemptions_total", "Cumulative number of preemptions from the engine.",
			func(s engine.Stats) float64 { return float64(s.Preemptions) }),
		counter("vllm:generation_tokens_total", "Number of generation tokens processed.",
			func(s engine.Stats) float64 { return float64(s.GeneratedTokens) }),
		m.promptTokens, m.success, m.rejections, m.ttft, m.itl, m.e2e, m.queue, m.promptHist, m.genHist,
	)
	// Zero series, as vLLM exposes one per finish reason; "error" is a
	// stream that failed mid-generation (Faults.ErrorEventRate).
	for _, r := range []string{"stop", "length", "abort", "error"} {
		m.success.WithLabelValues(r)
	}
	for _, r := range []string{RejectQueuedReqs, RejectQueuedTokens} {
		m.rejections.WithLabelValues(r)
	}
	return m
}

// stepStarted records the queue time of sequences scheduled for the first
// time: from when the engine got them, as vLLM measures it.
func (m *metrics) stepStarted(now time.Time, admitted []*engine.Seq) {
	for _, s := range admitted {
		if st, ok := s.Owner.(*stream); ok {
			m.queue.Observe(now.Sub(st.queued).Seconds())
		}
	}
}

// token records one generated token of st at time at; prev is the time of
// its previous token.
func (m *metrics) token(st *stream, first bool, at, prev time.Time) {
	if first {
		m.ttft.Observe(at.Sub(st.arrival).Seconds())
		m.promptTokens.Add(float64(st.seq.PromptLen()))
	} else {
		m.itl.Observe(at.Sub(prev).Seconds())
	}
	if st.seq.Done() {
		m.e2e.Observe(at.Sub(st.arrival).Seconds())
		m.promptHist.Observe(float64(st.seq.PromptLen()))
		m.genHist.Observe(float64(st.seq.Generated()))
		m.success.WithLabelValues(st.finishReason).Inc()
	}
}

// rejected counts a request admission control refused.
func (m *metrics) rejected(reason string) { m.rejections.WithLabelValues(reason).Inc() }

// finished counts a request that ended without finishing.
func (m *metrics) finished(reason string) { m.success.WithLabelValues(reason).Inc() }

package metrics

import (
	"net/http"
	"strconv"

	"github.com/llmslo/llmslo/vllmsim/engine"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
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
	iterationTokenBuckets = []float64{1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}
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

// Names lists every metric family /metrics serves. Each series
// carries model_name and engine (the data-parallel engine's index, "0"
// here), as vLLM V1's do, but vllm:cache_config_info, which carries the
// cache's configuration and engine instead, and
// vllm:admission_rejections_total, counted in the API server before a
// request reaches an engine, which has no engine label. vllm:time_per_output_token_seconds
// is not served: vLLM deprecated it for vllm:inter_token_latency_seconds
// and no longer shows it.
var Names = []string{
	"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:num_requests_waiting_by_reason",
	"vllm:kv_cache_usage_perc", "vllm:cache_config_info",
	"vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total", "vllm:num_preemptions_total",
	"vllm:prompt_tokens_total", "vllm:prompt_tokens_cached_total", "vllm:generation_tokens_total",
	"vllm:request_success_total", "vllm:admission_rejections_total", "vllm:iteration_tokens_total",
	"vllm:time_to_first_token_seconds", "vllm:inter_token_latency_seconds",
	"vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds",
	"vllm:request_prefill_time_seconds", "vllm:request_decode_time_seconds", "vllm:request_inference_time_seconds",
	"vllm:request_prompt_tokens", "vllm:request_generation_tokens",
}

// engineIndex is the engine label's value: the simulator is one engine.
const engineIndex = "0"

// Metrics holds the server's Prometheus collectors, registered on a
// registry of its own. Gauges and engine totals are read from the engine at
// scrape time; request timings are observed by the engine loop as tokens
// are produced (observe.go).
type Metrics struct {
	reg                        *prometheus.Registry
	promptTokens, cachedTokens prometheus.Counter
	success, rejections        *prometheus.CounterVec
	ttft, itl                  prometheus.Histogram
	e2e, queue                 prometheus.Histogram
	prefill, decode, infer     prometheus.Histogram
	promptHist, genHist        prometheus.Histogram
	iterTokens                 prometheus.Histogram
}

// ServerConfig is what /metrics says of the server's configuration, its
// defaults filled in.
type ServerConfig struct {
	Model                string // the served model's name
	MaxModelLen          int
	BlockSize            int
	NumGPUBlocks         int
	NumGPUBlocksOverride int    // 0: none given
	CacheDType           string // "auto" unless given
	GPUMemoryUtilization float64
	PrefixCaching        bool
	// RejectReasons are admission control's reasons, each given a zero
	// series of vllm:admission_rejections_total.
	RejectReasons []string
}

// cacheLabels are vllm:cache_config_info's labels.
func (c ServerConfig) cacheLabels() prometheus.Labels {
	override := "None"
	if c.NumGPUBlocksOverride > 0 {
		override = strconv.Itoa(c.NumGPUBlocksOverride)
	}
	return prometheus.Labels{
		"engine": engineIndex, "block_size": strconv.Itoa(c.BlockSize), "num_gpu_blocks": strconv.Itoa(c.NumGPUBlocks),
		"num_gpu_blocks_override": override, "cache_dtype": c.CacheDType,
		"enable_prefix_caching": pyBool(c.PrefixCaching), "gpu_memory_utilization": strconv.FormatFloat(c.GPUMemoryUtilization, 'g', -1, 64),
	}
}

// pyBool writes a boolean as vLLM's labels do, with Python's str().
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// New makes the collectors of a server configured as mc; stats reads the
// engine's totals and gauges at scrape time.
func New(mc ServerConfig, stats func() engine.Stats) *Metrics {
	labels := prometheus.Labels{"model_name": mc.Model, "engine": engineIndex}
	m := &Metrics{reg: prometheus.NewRegistry()}
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
	m.cachedTokens = prometheus.NewCounter(prometheus.CounterOpts{Name: "vllm:prompt_tokens_cached_total",
		Help: "Number of cached prompt tokens (local + external).", ConstLabels: labels})
	m.success = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vllm:request_success_total",
		Help: "Count of finished requests, by finish reason.", ConstLabels: labels}, []string{"finished_reason"})
	// Admission happens in the API server, before a request has an
	// engine: vLLM's counter has no engine label (pull request 55812).
	m.rejections = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vllm:admission_rejections_total",
		Help:        "Requests refused by admission control, by the limit that refused them.",
		ConstLabels: prometheus.Labels{"model_name": mc.Model}}, []string{"reason"})
	m.ttft = hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds (from arrival).", ttftBuckets)
	m.itl = hist("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", itlBuckets)
	m.e2e = hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", requestLatencyBuckets)
	m.queue = hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", requestLatencyBuckets)
	m.prefill = hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", requestLatencyBuckets)
	m.decode = hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", requestLatencyBuckets)
	m.infer = hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", requestLatencyBuckets)
	m.promptHist = hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", build125Buckets(mc.MaxModelLen))
	m.genHist = hist("vllm:request_generation_tokens", "Number of generation tokens processed.", build125Buckets(mc.MaxModelLen))
	m.iterTokens = hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", iterationTokenBuckets)
	waiting := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "vllm:num_requests_waiting_by_reason",
		Help: "Number of requests waiting, by the reason they wait.", ConstLabels: labels}, []string{"reason"})
	info := prometheus.NewGauge(prometheus.GaugeOpts{Name: "vllm:cache_config_info",
		Help: "Information of the LLMEngine CacheConfig", ConstLabels: mc.cacheLabels()})
	info.Set(1)
	m.reg.MustRegister(
		gauge("vllm:num_requests_running", "Number of requests in model execution batches.",
			func(s engine.Stats) float64 { return float64(s.Running) }),
		gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.",
			func(s engine.Stats) float64 { return float64(s.Waiting) }),
		waitingByReason{vec: waiting, stats: stats},
		gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.",
			func(s engine.Stats) float64 { return s.KVUsage }),
		info,
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
		m.promptTokens, m.cachedTokens, m.success, m.rejections, m.ttft, m.itl, m.e2e, m.queue,
		m.prefill, m.decode, m.infer, m.promptHist, m.genHist, m.iterTokens,
	)
	// Zero series, as vLLM exposes one per finish reason; "error" is a
	// stream that failed mid-generation (Faults.ErrorEventRate).
	for _, r := range []string{"stop", "length", "abort", "error"} {
		m.success.WithLabelValues(r)
	}
	for _, r := range mc.RejectReasons {
		m.rejections.WithLabelValues(r)
	}
	return m
}

// Handler serves the registry in Prometheus' text format.
func (m *Metrics) Handler() http.Handler { return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}) }

// waitingByReason serves vllm:num_requests_waiting_by_reason from the
// engine at scrape time. Every waiting request waits for capacity (KV
// blocks, a sequence slot, the token budget); none is "deferred", which in
// vLLM waits for a grammar or a remote KV transfer the simulator has not.
type waitingByReason struct {
	vec   *prometheus.GaugeVec
	stats func() engine.Stats
}

func (w waitingByReason) Describe(ch chan<- *prometheus.Desc) { w.vec.Describe(ch) }

func (w waitingByReason) Collect(ch chan<- prometheus.Metric) {
	w.vec.WithLabelValues("capacity").Set(float64(w.stats().Waiting))
	w.vec.WithLabelValues("deferred").Set(0)
	w.vec.Collect(ch)
}

package report

// Metric names a measured quantity an SLO can bound.
type Metric string

// The metrics, as docs/metrics.md defines them.
const (
	MetricTTFT      Metric = "ttft"       // time to first token from the intended send time
	MetricTTFTSend  Metric = "ttft_send"  // time to first token from the actual send time
	MetricITL       Metric = "itl"        // gaps between token-carrying events, pooled
	MetricTPOT      Metric = "tpot"       // time per output token after the first, per request
	MetricE2EL      Metric = "e2el"       // end-to-end latency from the intended send time
	MetricE2ELSend  Metric = "e2el_send"  // end-to-end latency from the actual send time
	MetricErrorRate Metric = "error_rate" // (failed + shed + unfinished) / (sent − canceled − abandoned)
)

// Package metrics is the simulator's Prometheus surface, GET /metrics as
// vLLM V1 serves it: the same family names, labels, help texts and
// histogram buckets (vllm/v1/metrics/loggers.py), fed by the engine loop as
// steps end and tokens come, and by the engine's totals at scrape time.
//
// It describes one simulated engine. It is not a client: to read a real
// server's metrics, scrape them (load/vllmapi does).
package metrics

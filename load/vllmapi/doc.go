// Package vllmapi speaks the parts of a vLLM server that are not the
// OpenAI API: the Prometheus /metrics it exports (vllm:num_requests_running,
// waiting, KV-cache usage, prefix-cache queries and hits, preemptions),
// summarised over a step's window; /reset_prefix_cache (served in dev
// mode); and /tokenize, through which chat prompts are made exact. Servers
// that lack them are still measured: the figures are then missing and the
// report says so.
//
// Its auxiliary traffic goes through token buckets (golang.org/x/time/rate)
// so that it never disturbs the measurement it serves; the measured
// requests themselves never do (see package arrival).
package vllmapi

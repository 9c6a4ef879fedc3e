// Package vllmsim is a vLLM-compatible server simulator: a discrete model of
// vLLM's V1 engine (continuous batching under max_num_seqs and
// max_num_batched_tokens, chunked prefill, a paged KV cache with prefix
// caching and LRU eviction, recompute preemption, a calibrated step-time
// model) run in real time behind vLLM's OpenAI-compatible HTTP API and its
// Prometheus metrics.
//
// It exists so that load tests have a target whose behaviour under load is
// known: queues build when an open-loop rate passes capacity, a repeated
// prompt hits the prefix cache, a full KV cache preempts. Use NewServer in
// tests as httptest.NewServer is used, ListenAndServe (or `llmslo sim`) to
// serve it on a port with vLLM's own command-line flags, and Engine to run
// the scheduler in virtual time.
//
// It is not a model: generated text is filler, and its latencies are those of
// its step profile, not of your hardware. Do not use it to predict a real
// deployment's capacity; use it to test the tools that measure one.
package vllmsim

// Package vllmsim is a vLLM-compatible server simulator: a discrete model of
// vLLM's V1 engine (continuous batching under max_num_seqs and
// max_num_batched_tokens, chunked prefill, a paged KV cache with prefix
// caching and LRU eviction, recompute preemption) whose steps take the time
// a step-time model gives them, run in real time behind vLLM's
// OpenAI-compatible HTTP API and its Prometheus metrics.
//
// The step-time model is, by default, a roofline of the served model on the
// simulated GPUs (engine.Roofline): weight and KV bytes against HBM bandwidth,
// FLOPs against dense peak, tensor-parallel all-reduces and the engine's
// CPU time, with a few efficiency factors calibrated against published vLLM
// figures. Models are known by Hugging Face name or read from a
// config.json; the KV cache is sized from the GPU's memory as vLLM sizes
// it; vLLM's own flags (--model, --tensor-parallel-size, --quantization,
// --kv-cache-dtype, --gpu-memory-utilization, …) take effect, and --gpu
// names the GPU. docs/simulator.md has the model, its sources and its
// calibration table.
//
// It exists so that load tests have a target whose behaviour under load is
// known: queues build when an open-loop rate passes capacity, a repeated
// prompt hits the prefix cache, a full KV cache preempts. Use NewServer in
// tests as httptest.NewServer is used, ListenAndServe (or `llmslo sim`) to
// serve it on a port with vLLM's own command-line flags. The engine core
// (scheduler, KV cache, step-time models, hardware) is package
// vllmsim/engine, which runs in virtual time without a server; package
// vllmsim/drive runs it in real time, and vllmsim/wire, vllmsim/tokenizer
// and vllmsim/metrics hold the HTTP API's shapes, the tokenizer and
// /metrics. This package holds the configuration, the flags, the handlers
// and the faults.
//
// It is not the model it simulates: generated text is filler, and its
// latencies are those of the step-time model and of an estimate of the API
// server's time in and out. Use it to test the tools that
// measure a deployment, and for first estimates of one; measure the
// deployment itself before relying on its capacity.
package vllmsim

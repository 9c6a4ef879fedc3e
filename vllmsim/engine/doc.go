// Package engine is the core of the vLLM simulator: a discrete model of
// vLLM's V1 engine (continuous batching under max_num_seqs and
// max_num_batched_tokens, chunked prefill, a paged KV cache with prefix
// caching and LRU eviction, recompute preemption) and the step-time models
// that say how long each of its steps takes on given hardware: a roofline of
// a model's shape on named GPUs (Roofline, calibrated once against published
// vLLM figures) or a hand-fit linear profile (Profile).
//
// It has no clock and does no I/O. A caller adds sequences, asks Schedule for
// the next step's batch, lets the batch's Duration pass (in real time, as
// package vllmsim does behind its HTTP API, or in virtual time, as a
// capacity estimate or a calibration run does) and calls Complete. That is
// what makes a simulated minute of load run in milliseconds.
//
// Use package vllmsim for a server to test against; use this package to ask
// what the modelled engine would do with a workload, without sockets. It is
// a model: its latencies are those of the step-time model, not of a GPU.
package engine

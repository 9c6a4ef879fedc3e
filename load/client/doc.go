// Package client is llmslo's OpenAI-compatible streaming client: stage 4 of
// the data path (docs/ARCHITECTURE.md), together with package dispatch. It
// sends one request to /v1/completions or /v1/chat/completions with
// stream=true and include_usage, reads the server-sent events with a small
// zero-allocation SSE reader, and timestamps every event that carries a
// token: the Outcome of a request is its send, first and last token times,
// every inter-token gap, the usage the server reported, and, when it
// failed, an ErrorClass (HTTP status, reset, stall, malformed stream, ...).
//
// It is generic: nothing in it is specific to vLLM (package vllmapi holds
// that), and it measures nothing beyond one request. Use it directly to
// time single requests; for load, the dispatcher drives it.
package client

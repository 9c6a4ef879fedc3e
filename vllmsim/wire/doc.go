// Package wire is the simulator's OpenAI-compatible HTTP surface as vLLM
// writes it: the request bodies it reads (/v1/completions,
// /v1/chat/completions), the whole answers and SSE stream chunks it
// writes, and its error bodies in both of vLLM's shapes. It holds the wire
// format only: when a token is due, which faults strike and how a request
// is timed are the server's (package vllmsim).
//
// It is vLLM's dialect, not OpenAI's API in full: one choice (n=1), text
// content only, no logprobs, no tools. Clients do not import it:
// load/client reads these shapes from any server, real or simulated.
package wire

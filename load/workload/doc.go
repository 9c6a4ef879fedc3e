// Package workload turns a fixture into the requests of a run: stage 2 of
// the data path (docs/ARCHITECTURE.md). Request i is a deterministic draw
// for the seed (a fixture row, or row i mod n for a trace replay) with a
// prompt synthesized to its exact length: token ids on the completions API;
// words on the chat API, made exact by measuring them with a Tokenizer
// (vllmapi.HTTPTokenizer asks the server's /tokenize) before a step, off
// the send path. Every prompt is salted per run so that no earlier run's
// prefix cache serves it, while requests that share prefix blocks in the
// fixture share the same tokens within the run.
//
// A fixture with sessions is replayed through Sessions (Generator.Sessions,
// docs/sessions.md): arrival i replays one session with its sub-agents,
// and each turn's prompt grows as the recorded one did (the previous
// prompt, a stand-in of the previous output, new tokens; by hash id where
// the trace has them), salted per session, never within one. On the chat
// API a turn sends the conversation so far as messages.
//
// It owns Request and the small Workload interface (with WorkloadFunc, so
// a test can hand the run loop any requests it likes). It knows nothing of
// schedules, HTTP or timing; it does not send anything.
package workload

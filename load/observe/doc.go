// Package observe turns what the client saw into a step's measurements:
// stage 5 of the data path (docs/ARCHITECTURE.md). Its Recorder takes each
// request's Outcome as it finishes and keeps the latency histograms (TTFT
// from the intended time, TTFT from the send, ITL, TPOT, E2EL, send lag,
// body write), counts by outcome and error class, tokens, goodput against
// per-request limits, and a per-second timeline; Step summarises them as a
// report.StepReport plus the Evidence the hazard checks need. Its Monitor
// measures the load generator itself (CPU, Go scheduler latency) during a
// step. Turns, beside it in a session replay, splits turns by position
// (first against later) and counts sessions.
//
// Requests that did not finish are never dropped from the figures: one
// still running at the drain bound, or abandoned by the client after a
// stall or its timeout, enters TTFT and E2EL with what the user had waited
// so far, as a lower bound. It judges nothing.
package observe

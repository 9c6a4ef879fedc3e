// Package slotest gates LLM serving on service-level objectives from go
// test. One call, Run, starts a target (the in-process vLLM simulator by
// default, a URL, or a vLLM container, which package slotest/vllmcontainer
// starts for the tests that import it), replays a fixture at open-loop rates
// (each rate a subtest), and fails a step whose p95 TTFT, p99 ITL or any
// other SLO is violated, or whose measurement cannot be trusted: a warm
// prefix cache, a client too slow to keep the schedule, a server not yet in
// a steady state, too few samples for the percentile, or a server that did
// not honour the requested lengths (one that stops at EOS whatever
// ignore_eos says is declared with WithLengthsAdvisory). A fixture with sessions (agent runs,
// conversations) is replayed as sessions, its rates in sessions per
// second, paced by WithThinkTimeScale and WithMaxThink (docs/sessions.md).
//
// It is one of two faces over package load (the other is the llmslo
// command): the core (load.Open, Measurement.Step, Measure) returns errors and
// reports and knows nothing of testing; Run and CheckStep are thin
// testing.TB wrappers, and the Assert helpers wrap verdict.Check; all are
// test helpers, so a failure names the test's own line.
//
// It is not a micro-benchmark harness: a step lasts seconds to minutes, and
// its verdict rests on percentiles with stated confidence intervals.
package slotest

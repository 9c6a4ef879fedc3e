// Package examples holds SLO tests to copy into a model-serving repository.
// Each runs on the embedded simulator by default (go test ./examples/...);
// SLOTEST_TARGET=http://host:8000 or SLOTEST_TARGET=vllm points the same
// tests at a real server.
//
//   - prgate_test.go: a pull-request gate on p95 TTFT and p99 ITL with the
//     Azure conversation trace.
//   - warmcache_test.go: why prompts are salted and the prefix cache reset:
//     the warm_cache hazard firing when both are turned off.
//   - overload_test.go: an overloaded server failing open-loop while a
//     closed-loop (fixed-concurrency) measurement of it looks healthy.
//   - agentic_test.go: a gate on a coding agent's sessions (WEKA traces),
//     replayed turn by turn with their growing, cached context.
package examples

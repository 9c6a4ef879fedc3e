// Package examples holds SLO tests to copy into a model-serving repository.
// Each runs on the embedded simulator by default
// (LLMSLO_EXAMPLES=1 go test -p 1 ./examples: they are real-time gates of
// 5 to 55 s, so llmslo's own `go test ./...` passes over them and CI runs
// them in a pass of their own); SLOTEST_TARGET=http://host:8000 or
// SLOTEST_TARGET=vllm points the same tests at a real server (main_test.go
// imports slotest/vllmcontainer for the latter; a copy that never starts a
// container can leave that import out). Copied into another repository they
// run under a plain go test.
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

package testkit

import (
	"os"
	"testing"
)

// LongEnv is the variable that runs the long tests: tuning loops, overload
// gates, sweeps, interval checks and trace-length steps on the simulator,
// and shard processes, in real time, 8 to 80 s each. The README's
// `go test -p 1 ./...` skips them; CI runs them every time in a stage of
// their own (`.ci/run`, "long tests").
const LongEnv = "LLMSLO_LONG"

// Long skips t unless LLMSLO_LONG=1. A test that calls it does so first,
// directly in its own body: .ci/run finds the long tests by that call.
func Long(t testing.TB) {
	t.Helper()
	if os.Getenv(LongEnv) != "1" {
		t.Skipf("a long real-time test; %s=1 runs it (CI always does)", LongEnv)
	}
}

package testkit

import (
	"os"
	"testing"
)

// LongEnv is the variable that runs the long tests: real-time steps of 10
// to 40 s whose client is part of what they check (the PR gate at the
// command line, an interval that must cover the machine's own noise) and
// shard processes. Tests whose client is not checked run the simulator in
// virtual time instead (testing/synctest), and are not long, save checks
// of a documented figure over gatepower's forty seeds. The README's
// `go test -p 1 ./...` skips them; CI runs them every time in a stage of
// their own (`.ci/run`, "long tests").
const LongEnv = "LLMSLO_LONG"

// Long skips t unless LLMSLO_LONG=1. A test that calls it does so first,
// directly in its own body: .ci/run finds the long tests by that call.
func Long(t testing.TB) {
	t.Helper()
	if os.Getenv(LongEnv) != "1" {
		t.Skipf("a long test; %s=1 runs it (CI always does)", LongEnv)
	}
}

package examples

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	_ "github.com/llmslo/llmslo/slotest/vllmcontainer" // SLOTEST_TARGET=vllm starts a container
)

// runEnv is the variable that runs the examples in llmslo's own test pass:
// each is a real-time gate of 5 to 55 s, too long for the quick loop of
// every change, so `go test ./...` passes over them and CI runs them in a
// pass of their own (`LLMSLO_EXAMPLES=1 go test -p 1 ./examples`). Pointing
// them at a server (SLOTEST_TARGET) runs them too. A copied example needs
// none of this.
const runEnv = "LLMSLO_EXAMPLES"

// TestMain checks that the examples leave no goroutine behind: a gate that
// leaks a simulator or a stream per run would slowly sink a test binary.
func TestMain(m *testing.M) {
	if os.Getenv(runEnv) == "" && os.Getenv("SLOTEST_TARGET") == "" {
		fmt.Printf("examples: not run; %s=1 go test -p 1 ./examples runs them (about 2 min)\n", runEnv)
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

package busy

import (
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The loops take the CPU while they run and are all gone after stop.
func TestLoopsStopAndLeaveNothing(t *testing.T) {
	before := runtime.NumGoroutine()
	stop := Loops(3)
	if got := runtime.NumGoroutine(); got < before+3 {
		t.Fatalf("%d goroutines running, want at least %d", got, before+3)
	}
	time.Sleep(10 * time.Millisecond)
	stop()
}

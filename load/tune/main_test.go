package tune

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them.
//
// A few light tests call t.Parallel and so run two at a time after the
// rest, which run alone: those whose steps send a few requests a second
// and whose assertions stand on the server's state and on latencies of
// tens of milliseconds or more, which a neighbour's CPU cannot move.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

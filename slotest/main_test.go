package slotest

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them.
//
// A few light tests call t.Parallel and so run two at a time after the
// rest, which run alone: those that judge counts, hazards and the
// server's cache and KV figures, which a neighbour's CPU cannot move.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

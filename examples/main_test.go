package examples

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that the examples leave no goroutine behind: a gate that
// leaks a simulator or a stream per run would slowly sink a test binary.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

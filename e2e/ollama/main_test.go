package ollamae2e

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them. The
// tests run one at a time: each measures a server on this machine's CPUs.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

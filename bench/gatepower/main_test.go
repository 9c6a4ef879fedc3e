package main

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: the
// trials run side by side on goroutines of their own.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

package vllmsim

import (
	"testing"

	"go.uber.org/goleak"
)

func goleakVerify(m *testing.M) { goleak.VerifyTestMain(m) }

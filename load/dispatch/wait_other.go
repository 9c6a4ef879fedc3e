//go:build !linux

package dispatch

import (
	"errors"
	"time"
)

// kernelTimer is Linux's timerfd; elsewhere there is none, and the fine
// wait is WaitTimer (newWaiter), so neither it nor fineSleep is called.
type kernelTimer struct{}

func newKernelTimer() (*kernelTimer, error) {
	return nil, errors.New("dispatch: no kernel timer on this system")
}

func (*kernelTimer) arm(time.Duration) error { return nil }
func (*kernelTimer) wait() error             { return nil }
func (*kernelTimer) close()                  {}

func fineSleep(d time.Duration) { time.Sleep(d) }

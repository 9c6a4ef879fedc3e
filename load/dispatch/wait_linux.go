package dispatch

import (
	"errors"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// kernelTimer is a timerfd watched by the runtime's poller. A goroutine
// waiting on it is parked, as on a runtime timer, holding no thread and no
// processor, and the kernel's high-resolution timer wakes it (to its slack
// of about 50 µs), where the runtime's poller sleeps in whole milliseconds.
type kernelTimer struct {
	f      *os.File // non-blocking, so reads park on the poller
	fd     int      // f's, kept: f.Fd() would make it blocking
	mu     sync.Mutex
	closed bool
}

func newKernelTimer() (*kernelTimer, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &kernelTimer{f: os.NewFile(uintptr(fd), "timerfd"), fd: fd}, nil
}

// arm sets the timer to expire d from now, or at once when d <= 0.
func (k *kernelTimer) arm(d time.Duration) error {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(max(d, 1)))}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return errors.New("dispatch: kernel timer closed")
	}
	return unix.TimerfdSettime(k.fd, 0, &spec, nil)
}

// wait returns once the timer has expired since the last wait, at once if
// it already has.
func (k *kernelTimer) wait() error {
	var n [8]byte // the count of expirations
	_, err := k.f.Read(n[:])
	return err
}

func (k *kernelTimer) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.closed {
		k.closed = true
		_ = k.f.Close()
	}
}

// fineSleep sleeps d in the kernel (an hrtimer, precise to its slack of
// about 50 µs). The goroutine's thread blocks in the syscall, so the
// runtime hands its processor to other goroutines if they need it. A
// signal may end it early; the caller loops.
func fineSleep(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	_ = unix.Nanosleep(&ts, nil)
}

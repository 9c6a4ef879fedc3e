package dispatch

import (
	"syscall"
	"time"
)

// fineSleepWorks says fineSleep is the kernel's high-resolution sleep.
const fineSleepWorks = true

// fineSleep sleeps d in the kernel (an hrtimer, precise to its slack of
// about 50 µs). The goroutine's thread blocks in the syscall, so the
// runtime hands its processor to other goroutines if they need it. A
// signal may end it early; the caller loops.
func fineSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}

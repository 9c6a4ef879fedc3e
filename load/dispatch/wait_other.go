//go:build !linux

package dispatch

import "time"

// fineSleepWorks is false: elsewhere the runtime timer is all there is.
const fineSleepWorks = false

func fineSleep(d time.Duration) { time.Sleep(d) }

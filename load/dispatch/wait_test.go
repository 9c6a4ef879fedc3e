package dispatch

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var modes = []WaitMode{WaitFine, WaitTimer, WaitSpin}

func TestWaitUntilNeverEarly(t *testing.T) {
	for _, mode := range modes {
		w := newWaiter(context.Background(), mode)
		for _, d := range []time.Duration{-time.Millisecond, 0, 50 * time.Microsecond, 700 * time.Microsecond, 3 * time.Millisecond} {
			at := time.Now().Add(d)
			assert.True(t, w.until(context.Background(), at), "%v %v", mode, d)
			assert.False(t, time.Now().Before(at), "%v woke before a send %v away", mode, d)
		}
		w.close()
	}
}

func TestWaitUntilStopsOnCancel(t *testing.T) {
	for _, mode := range modes {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		w := newWaiter(ctx, mode)
		start := time.Now()
		assert.False(t, w.until(ctx, start.Add(time.Hour)), "%v", mode)
		assert.Less(t, time.Since(start), time.Second, "%v", mode)
		// Once ctx has ended, every wait ends at once.
		assert.False(t, w.until(ctx, time.Now().Add(time.Hour)), "%v", mode)
		w.close()
		cancel()
	}
}

// On Linux the fine wait is the kernel's timer; a wait for a time already
// past, or after the context's firing was consumed, still waits its time.
func TestFineWaitUsesTheKernelTimer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel timer is Linux's timerfd")
	}
	w := newWaiter(context.Background(), WaitFine)
	defer w.close()
	require.NotNil(t, w.kernel, "no timerfd: the fine wait fell back to the runtime timer")
	require.NoError(t, w.kernel.arm(0)) // a stale expiry, as a context's firing leaves
	time.Sleep(time.Millisecond)
	at := time.Now().Add(5 * time.Millisecond)
	assert.True(t, w.until(context.Background(), at))
	assert.False(t, time.Now().Before(at), "a stale expiry ended the wait early")
	k := w.kernel
	w.close()
	assert.Error(t, k.arm(time.Millisecond), "a closed timer must not be armed")
	assert.Nil(t, w.kernel)
}

// A kernel timer that fails (here, closed under the waiter) gives way to
// the runtime timer for that wait and every later one.
func TestFineWaitFallsBackWhenTheKernelTimerFails(t *testing.T) {
	w := newWaiter(context.Background(), WaitFine)
	defer w.close()
	if w.kernel == nil {
		t.Skip("no kernel timer here: the fine wait is the runtime timer's already")
	}
	w.kernel.close()
	at := time.Now().Add(5 * time.Millisecond)
	assert.True(t, w.until(context.Background(), at))
	assert.False(t, time.Now().Before(at), "the fallback woke early")
	assert.Nil(t, w.kernel)
	assert.Equal(t, WaitTimer, w.mode)
}

func TestParseWaitMode(t *testing.T) {
	for _, mode := range []WaitMode{WaitFine, WaitTimer, WaitSpin} {
		got, ok := ParseWaitMode(mode.String())
		assert.True(t, ok)
		assert.Equal(t, mode, got)
	}
	_, ok := ParseWaitMode("sleep")
	assert.False(t, ok)
}

package dispatch

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestWaitUntilNeverEarly(t *testing.T) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for _, mode := range []WaitMode{WaitFine, WaitTimer, WaitSpin} {
		for _, d := range []time.Duration{-time.Millisecond, 0, 50 * time.Microsecond, 700 * time.Microsecond, 3 * time.Millisecond} {
			at := time.Now().Add(d)
			assert.True(t, waitUntil(context.Background(), mode, timer, at), "%v %v", mode, d)
			assert.False(t, time.Now().Before(at), "%v woke before a send %v away", mode, d)
		}
	}
}

func TestWaitUntilStopsOnCancel(t *testing.T) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for _, mode := range []WaitMode{WaitFine, WaitTimer, WaitSpin} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		start := time.Now()
		assert.False(t, waitUntil(ctx, mode, timer, start.Add(time.Hour)), "%v", mode)
		assert.Less(t, time.Since(start), time.Second, "%v", mode)
		cancel()
	}
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

package arrival

import "time"

// Process is an arrival process: the intended send offsets of a window of
// length d at rate req/s, ascending, each in [0, d), the same for the same
// seed. Implement it for a schedule the built-in kinds do not cover. The
// run loop calls it once per step, before the step starts, and sends every
// offset on time whatever the server does.
type Process interface {
	Offsets(rate float64, d time.Duration, seed int64) ([]time.Duration, error)
}

// ProcessFunc adapts a function to Process.
type ProcessFunc func(rate float64, d time.Duration, seed int64) ([]time.Duration, error)

// Offsets calls f.
func (f ProcessFunc) Offsets(rate float64, d time.Duration, seed int64) ([]time.Duration, error) {
	return f(rate, d, seed)
}

// Offsets is Schedule without a trace, so that a Spec of any kind but
// trace is a Process.
func (a Spec) Offsets(rate float64, d time.Duration, seed int64) ([]time.Duration, error) {
	return a.Schedule(rate, d, seed, nil)
}

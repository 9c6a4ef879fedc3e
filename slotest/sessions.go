package slotest

import "time"

// WithThinkTimeScale multiplies the think time before each turn of a
// session replay (default 1, as recorded; it must be positive): 0.1 replays
// a coding agent's sessions ten times faster on the client's side, the
// server's response times untouched. See docs/sessions.md.
func WithThinkTimeScale(scale float64) Option {
	return func(c *config) { c.ThinkTimeScale = scale }
}

// WithMaxThink caps a session turn's scaled think time (0: no cap), so
// that one recorded pause of an hour does not stall a test.
func WithMaxThink(d time.Duration) Option { return func(c *config) { c.MaxThink = d } }

package engine

import "time"

// Frontend is the API server's intake in front of the engine: HTTP,
// validation and tokenizing, one request at a time, on a caller's clock
// (virtual time, or time since a server started). Package vllmsim sets its
// costs (docs/simulator.md, "The API server").
type Frontend struct {
	Overhead time.Duration // a request
	PerToken time.Duration // a prompt token (tokenizing)
	// HoldsEngine: the engine starts no step while a request is being taken
	// in. V0's API server and engine shared an event loop, so a burst was
	// taken in whole before the next step: LambdaLabs' 10 prompts sent at
	// once all got their first token in one step, 62 ms after the start,
	// and the 320 prompts' first tokens began 0.8 s after it, then came
	// every 50 ms, one 2,048-token prompt step after another. V1's engine
	// core runs in its own process and steps while requests trickle in.
	HoldsEngine bool
	free        time.Duration // when the intake is next free
}

// Zero reports whether the intake costs nothing.
func (f *Frontend) Zero() bool { return f.Overhead == 0 && f.PerToken == 0 }

// Admit takes in a request that arrived at `at` with n prompt tokens, after
// every request before it, and returns when the engine gets it.
func (f *Frontend) Admit(at time.Duration, n int) time.Duration {
	f.free = max(at, f.free) + f.Overhead + time.Duration(n)*f.PerToken
	return f.free
}

package dispatch

import "time"

// Sender is how every loop of a run sends: through one Doer, under one
// in-flight cap, with one bound on the drain. It is the same for each step
// of a run, so a run builds it once and hands it to each step's loop.
type Sender struct {
	Doer Doer
	// MaxInFlight caps requests (or turns) in flight; one over the cap is
	// dropped and counted. Zero means no cap.
	MaxInFlight int
	// DrainTimeout bounds the wait for requests still in flight after the
	// last send (zero: DefaultDrainTimeout). Requests unfinished at the
	// bound are cancelled and recorded as ClassUnfinished, never
	// forgotten.
	DrainTimeout time.Duration
	// Wait is how a loop waits for each send's time; the zero value,
	// WaitFine, is the punctual one (bench/ compares the modes). A run in
	// virtual time (testing/synctest) takes WaitTimer: only the runtime's
	// timers move that clock.
	Wait WaitMode
}

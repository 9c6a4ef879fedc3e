package drive

import (
	"sync"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

// Stream is one request's link between the engine loop and its HTTP
// handler. The loop only bumps a counter and signals; tokens are derived
// from the count, so a slow client never holds the engine up and needs no
// buffer beyond the count.
type Stream struct {
	Seq          *engine.Seq
	Arrival      time.Time // at the API server
	FinishReason string    // "stop" or "length", decided at arrival

	queued      time.Time     // handed to the engine, after the API server's time
	notify      chan struct{} // capacity 1: "something changed"
	mu          sync.Mutex
	produced    int
	done        bool
	firstAt     time.Time
	lastAt      time.Time
	scheduledAt time.Time // first scheduled, set by the engine loop
	// Admission control's marks (admission.go), guarded by Loop.mu.
	inFlight, inPrefill bool
}

// NewStream links seq, which arrived at arrival and will finish for
// reason, to its handler; seq's Owner becomes the stream.
func NewStream(seq *engine.Seq, arrival time.Time, reason string) *Stream {
	st := &Stream{Seq: seq, Arrival: arrival, FinishReason: reason, notify: make(chan struct{}, 1)}
	seq.Owner = st
	return st
}

// Progress returns how many tokens are ready and whether the sequence is
// finished.
func (st *Stream) Progress() (int, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.produced, st.done
}

// Changed receives when Progress may have changed.
func (st *Stream) Changed() <-chan struct{} { return st.notify }

func (st *Stream) signal() {
	select {
	case st.notify <- struct{}{}:
	default:
	}
}

// publish makes produced tokens, and done, visible to the handler.
func (st *Stream) publish(produced int, done bool) {
	st.mu.Lock()
	st.produced, st.done = produced, done
	st.mu.Unlock()
	st.signal()
}

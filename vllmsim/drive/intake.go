package drive

import (
	"sync"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

// intake is the real-time server's frontend: the API server's time before
// the engine sees a request, a serial stage in front of the engine
// (docs/simulator.md, "The API server").
type intake struct {
	mu     sync.Mutex
	f      engine.Frontend
	epoch  time.Time
	inside int // requests taken in, not yet handed to the engine or given up
}

// newIntake returns nil when the front end costs nothing.
func newIntake(f engine.Frontend) *intake {
	if f.Zero() {
		return nil
	}
	return &intake{f: f, epoch: time.Now()}
}

// enter queues a request that arrived at arrival and returns when it
// reaches the engine; the caller then hands it over (Loop.Submit) or gives
// up (Loop.GiveUp).
func (in *intake) enter(arrival time.Time, promptTokens int) time.Time {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.inside++
	return in.epoch.Add(in.f.Admit(arrival.Sub(in.epoch), promptTokens))
}

func (in *intake) leave() {
	in.mu.Lock()
	in.inside--
	in.mu.Unlock()
}

// holding reports whether the engine must wait for the intake.
func (in *intake) holding() bool {
	if in == nil || !in.f.HoldsEngine {
		return false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.inside > 0
}

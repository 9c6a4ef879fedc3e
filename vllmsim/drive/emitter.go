package drive

import (
	"sync"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

// emitter is the real-time server's output path (engine.Output): the engine
// loop hands it each step's tokens as the step ends, and it makes them
// visible to their streams when the API server would have written them.
// The engine loop never waits for it, as vLLM's engine core never waits for
// its API server.
type emitter struct {
	mu    sync.Mutex
	out   engine.Output
	epoch time.Time
	times []time.Duration
	queue []emission // in the order they leave, which is time order
	wake  chan struct{}
	stop  chan struct{}
	done  chan struct{}
}

// emission is one stream's progress, due at `at`.
type emission struct {
	at       time.Time
	st       *Stream
	produced int
	done     bool
}

// newEmitter returns nil when the output path costs nothing: the loop then
// publishes tokens itself, as the step ends.
func newEmitter(o engine.Output) *emitter {
	if o.Zero() {
		return nil
	}
	return &emitter{out: o, epoch: time.Now(), wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// step queues the tokens of a step that ended at `at`. The caller holds the
// engine's lock: the sequences' counts are read here.
func (e *emitter) step(at time.Time, emitted []*engine.Seq) {
	e.mu.Lock()
	e.times = e.out.Times(e.times[:0], at.Sub(e.epoch), len(emitted))
	for i, s := range emitted {
		st, _ := s.Owner.(*Stream)
		if st == nil {
			continue
		}
		e.queue = append(e.queue, emission{at: e.epoch.Add(e.times[i]), st: st, produced: s.Generated(), done: s.Done()})
	}
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// run publishes each emission once its time has come, until stop.
func (e *emitter) run() {
	defer close(e.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var due []emission
	for {
		e.mu.Lock()
		now := time.Now()
		n := 0
		for n < len(e.queue) && !e.queue[n].at.After(now) {
			n++
		}
		due = append(due[:0], e.queue[:n]...)
		e.queue = e.queue[:copy(e.queue, e.queue[n:])]
		var next time.Time
		if len(e.queue) > 0 {
			next = e.queue[0].at
		}
		e.mu.Unlock()
		for _, em := range due {
			em.st.publish(em.produced, em.done)
		}
		clear(due)
		wait := time.Hour
		if !next.IsZero() {
			wait = time.Until(next)
		}
		if wait <= 0 {
			continue
		}
		timer.Reset(wait)
		select {
		case <-timer.C:
		case <-e.wake:
			if !timer.Stop() {
				<-timer.C
			}
		case <-e.stop:
			return
		}
	}
}

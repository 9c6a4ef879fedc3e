package vllmsim

import (
	"sync"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
	"github.com/llmslo/llmslo/vllmsim/metrics"
)

// stream is one request's link between the engine loop and its HTTP
// handler. The loop only bumps a counter and signals; tokens are derived
// from the count, so a slow client never holds the engine up and needs no
// buffer beyond the count.
type stream struct {
	seq          *engine.Seq
	arrival      time.Time
	queued       time.Time     // handed to the engine, after the API server's time
	notify       chan struct{} // capacity 1: "something changed"
	mu           sync.Mutex
	produced     int
	done         bool
	finishReason string // "stop" or "length", decided at arrival
	firstAt      time.Time
	lastAt       time.Time
	scheduledAt  time.Time // first scheduled, set by the engine loop
	// Admission control's marks (admission.go), guarded by loop.mu.
	inFlight, inPrefill bool
}

// progress returns how many tokens are ready and whether the sequence is
// finished.
func (st *stream) progress() (int, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.produced, st.done
}

func (st *stream) signal() {
	select {
	case st.notify <- struct{}{}:
	default:
	}
}

// loop runs the engine in real time on one goroutine: schedule a step, wait
// until its absolute deadline, apply it, publish the tokens. Deadlines are
// chained (each step ends Duration after the previous one's deadline, not
// after the moment the loop woke up), so timer overshoot is paid back by the
// next step and the pace over many steps matches the model.
type loop struct {
	mu      sync.Mutex // guards eng
	eng     *engine.Engine
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	metrics *metrics.Metrics
	now     func() time.Time
	fresh   []*engine.Seq
	front   *intake  // nil when the API server costs nothing
	emit    *emitter // nil when the output path costs nothing
	adm     admission
	resets  []chan struct{} // prefix-cache resets waiting for the step to end (reset.go)
}

// maxLag bounds how far behind its deadlines the loop may fall before it
// stops catching up: within it, a late step is paid back by running the
// next ones sooner, so CPU contention on the host does not lower the
// modelled capacity; beyond it (the process was paused), the lost time is
// let go rather than replayed as a burst.
const maxLag = 50 * time.Millisecond

// submit hands a request taken in by the API server to the engine, or
// returns the reason admission control refused it.
func (l *loop) submit(st *stream) string {
	l.mu.Lock()
	if l.front != nil {
		l.front.leave() // under l.mu: the loop sees both changes at once
	}
	if reason := l.adm.admit(st); reason != "" {
		l.mu.Unlock()
		l.poke()
		return reason
	}
	st.queued = l.now()
	l.eng.Add(st.seq)
	l.mu.Unlock()
	l.poke()
	return ""
}

// giveUp forgets a request whose client left while it was being taken in.
func (l *loop) giveUp() {
	l.mu.Lock()
	l.front.leave()
	l.mu.Unlock()
	l.poke()
}

func (l *loop) poke() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *loop) abort(st *stream) {
	l.mu.Lock()
	finished := st.seq.Finished()
	l.eng.Abort(st.seq)
	l.adm.release(st)
	l.mu.Unlock()
	if !finished {
		l.metrics.Finished("abort")
	}
}

func (l *loop) run() {
	defer close(l.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var deadline time.Time
	for {
		l.mu.Lock()
		l.applyResets()
		if l.eng.Idle() || l.front.holding() {
			l.mu.Unlock()
			select {
			case <-l.wake:
				deadline = time.Time{}
				continue
			case <-l.stop:
				return
			}
		}
		b := l.eng.Schedule()
		fresh := append(l.fresh[:0], b.Admitted...)
		l.fresh = fresh
		dur := b.Duration
		l.mu.Unlock()

		now := l.now()
		if deadline.IsZero() || now.Sub(deadline) > maxLag {
			deadline = now
		}
		deadline = deadline.Add(dur)
		l.scheduled(now, fresh)
		if !l.sleepUntil(timer, deadline, now) {
			return
		}

		l.mu.Lock()
		emitted := l.eng.Complete(b)
		at := l.now()
		l.deliver(emitted, at)
		l.metrics.StepDone(b.Tokens)
		if l.emit != nil {
			l.emit.step(at, emitted)
		}
		l.mu.Unlock()
	}
}

// scheduled marks when each sequence scheduled for the first time was
// scheduled, the start of its prefill and of its inference (RUNNING) time,
// and records its queue time from when the engine got it.
func (l *loop) scheduled(now time.Time, admitted []*engine.Seq) {
	for _, s := range admitted {
		if st, ok := s.Owner.(*stream); ok {
			st.scheduledAt = now
			l.metrics.Queued(now.Sub(st.queued))
		}
	}
}

// sleepUntil waits for the step's end at deadline; it reports false when
// the loop is stopped first.
func (l *loop) sleepUntil(timer *time.Timer, deadline, now time.Time) bool {
	wait := deadline.Sub(now)
	if wait <= 0 {
		select {
		case <-l.stop:
			return false
		default:
			return true
		}
	}
	timer.Reset(wait)
	select {
	case <-timer.C:
		return true
	case <-l.stop:
		return false
	}
}

// deliver hands each sequence the step advanced to its stream, at: the
// token times, the admission bookkeeping and the metrics. l.mu is held.
func (l *loop) deliver(emitted []*engine.Seq, at time.Time) {
	for _, s := range emitted {
		st := s.Owner.(*stream)
		if st == nil {
			continue
		}
		st.mu.Lock()
		if l.emit == nil {
			st.produced = s.Generated()
			st.done = s.Done()
		}
		first := st.firstAt.IsZero()
		prev := st.lastAt
		if first {
			st.firstAt = at
		}
		st.lastAt = at
		st.mu.Unlock()
		if s.Done() {
			l.adm.release(st)
		} else if first {
			l.adm.prefilled(st)
		}
		// vLLM times its metrics by the engine core's output, before
		// the API server's output path.
		l.metrics.Token(metrics.Request{Seq: st.seq, Arrival: st.arrival, Scheduled: st.scheduledAt,
			First: st.firstAt, FinishReason: st.finishReason}, first, at, prev)
		if l.emit == nil {
			st.signal()
		}
	}
}

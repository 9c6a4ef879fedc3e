package drive

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
	"github.com/llmslo/llmslo/vllmsim/metrics"
)

// Loop runs the engine in real time on one goroutine: schedule a step, wait
// until its absolute deadline, apply it, publish the tokens. Deadlines are
// chained (each step ends Duration after the previous one's deadline, not
// after the moment the loop woke up), so timer overshoot is paid back by the
// next step and the pace over many steps matches the model.
type Loop struct {
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
	drift   func(time.Time) float64
	jitter  float64
	rng     *rand.Rand // the jitter's draws: the loop's goroutine alone
}

// Config is what a Loop drives and how.
type Config struct {
	Engine  *engine.Engine
	Metrics *metrics.Metrics
	// Frontend is the API server's time before the engine sees a request,
	// Output its time to publish a step's tokens; zero costs nothing.
	Frontend engine.Frontend
	Output   engine.Output
	// Admission control's limits (admission.go); 0: no limit.
	MaxQueuedReqs, MaxQueuedTokens int
	// Drift, when set, multiplies each step's modelled time by its value
	// at the step's start (vllmsim.Drift).
	Drift func(time.Time) float64
	// Jitter makes each step up to that share slower, drawn for each step
	// from a generator seeded with JitterSeed.
	Jitter     float64
	JitterSeed int64
}

// New returns a loop that is not yet running; call Start.
func New(c Config) *Loop {
	return &Loop{eng: c.Engine, metrics: c.Metrics, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		now: time.Now, front: newIntake(c.Frontend), emit: newEmitter(c.Output), drift: c.Drift, jitter: c.Jitter, rng: rand.New(rand.NewPCG(uint64(c.JitterSeed), 0x6a6974746572)),
		adm: admission{maxReqs: c.MaxQueuedReqs, maxTokens: c.MaxQueuedTokens}}
}

// Start runs the loop, and the output path, each on a goroutine of its
// own until Stop.
func (l *Loop) Start() {
	go l.run()
	if l.emit != nil {
		go l.emit.run()
	}
}

// Stop stops a started loop and waits for its goroutines.
func (l *Loop) Stop() {
	close(l.stop)
	<-l.done
	if e := l.emit; e != nil {
		close(e.stop)
		<-e.done
	}
}

// Stats returns the engine's totals and gauges.
func (l *Loop) Stats() engine.Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.eng.Stats()
}

// maxLag bounds how far behind its deadlines the loop may fall before it
// stops catching up: within it, a late step is paid back by running the
// next ones sooner, so CPU contention on the host does not lower the
// modelled capacity; beyond it (the process was paused), the lost time is
// let go rather than replayed as a burst.
const maxLag = 50 * time.Millisecond

// Submit hands a request taken in by the API server (EnterIntake) to the
// engine, or returns the reason admission control refused it.
func (l *Loop) Submit(st *Stream) string {
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
	l.eng.Add(st.Seq)
	l.mu.Unlock()
	l.poke()
	return ""
}

// EnterIntake queues st in the API server's intake, one request after
// another, and returns when it reaches the engine: the caller then hands
// it over (Submit) or gives up (GiveUp). Zero when the intake costs
// nothing: Submit at once.
func (l *Loop) EnterIntake(st *Stream) time.Time {
	if l.front == nil {
		return time.Time{}
	}
	return l.front.enter(st.Arrival, st.Seq.PromptLen())
}

// GiveUp forgets a request whose client left while it was being taken in.
func (l *Loop) GiveUp() {
	l.mu.Lock()
	l.front.leave()
	l.mu.Unlock()
	l.poke()
}

func (l *Loop) poke() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Abort aborts st's sequence, a no-op once it finished.
func (l *Loop) Abort(st *Stream) { l.AbortAs(st, "abort") }

func (l *Loop) run() {
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
		if l.drift != nil {
			dur = time.Duration(float64(dur) * l.drift(now))
		}
		if l.jitter > 0 {
			dur = time.Duration(float64(dur) * (1 + l.jitter*l.rng.Float64()))
		}
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
func (l *Loop) scheduled(now time.Time, admitted []*engine.Seq) {
	for _, s := range admitted {
		if st, ok := s.Owner.(*Stream); ok {
			st.scheduledAt = now
			l.metrics.Queued(now.Sub(st.queued))
		}
	}
}

// sleepUntil waits for the step's end at deadline; it reports false when
// the loop is stopped first.
func (l *Loop) sleepUntil(timer *time.Timer, deadline, now time.Time) bool {
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
func (l *Loop) deliver(emitted []*engine.Seq, at time.Time) {
	for _, s := range emitted {
		st := s.Owner.(*Stream)
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
		l.metrics.Token(metrics.Request{Seq: st.Seq, Arrival: st.Arrival, Scheduled: st.scheduledAt,
			First: st.firstAt, FinishReason: st.FinishReason}, first, at, prev)
		if l.emit == nil {
			st.signal()
		}
	}
}

// AbortAs aborts st's sequence and counts it as finished for reason, unless
// it had already finished.
func (l *Loop) AbortAs(st *Stream, reason string) {
	l.mu.Lock()
	finished := st.Seq.Finished()
	l.eng.Abort(st.Seq)
	l.adm.release(st)
	l.mu.Unlock()
	if !finished {
		l.metrics.Finished(reason)
	}
}

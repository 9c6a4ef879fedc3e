package dispatch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmslo/llmslo/client"
	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/workload"
)

// SessionSource yields the sessions of a replay: Session(i) is the
// top-level session arrival i replays, TurnRequest builds turn t of it or of
// one of its sub-agents. workload.Sessions is the one the runner uses. It
// must be safe for concurrent use.
type SessionSource interface {
	Session(i int) *fixtures.Session
	TurnRequest(i int, s *fixtures.Session, t int) workload.Request
}

// SessionRecorder is a Recorder that also hears how each measured session
// ended (observe.Turns is one): its intended start, when its first turn was
// sent (zero when it never was), how many of its turns (sub-agents'
// included) were never sent because the step ended first, and whether the
// step's end cut it (a turn unfinished or never sent).
type SessionRecorder interface {
	Recorder
	SessionEnded(intended, firstSent time.Time, unsent int, cut bool)
}

// Sessions replays sessions open-loop at the session level: session k
// starts at Start+Schedule[k] whatever the server does, and inside it each
// turn waits for the previous response, as the recorded client did. Turn
// t+1 is intended at the end of turn t's response (and of the sub-agents
// it waits for) plus its think time, scaled and capped; a sub-agent starts
// at its StartOffset after its parent's start and runs beside it. Intended
// times inside a session are computed as the replay runs, from the
// responses it gets; TTFT counts from them, so a late client shows as send
// lag, never as a shorter wait.
type Sessions struct {
	// Schedule holds the sessions' intended start offsets from Start,
	// ascending; Start zero means now.
	Schedule []time.Duration
	Start    time.Time
	// Source gives session FirstIndex+k for slot k.
	Source     SessionSource
	FirstIndex int
	// MeasureFrom: sessions starting before this offset (the warm-up) load
	// the server but are not recorded; those starting at or after it are
	// recorded turn by turn until they end or the drain bound passes.
	MeasureFrom time.Duration
	Doer        Doer
	Recorder    Recorder
	// ThinkScale multiplies every think time (0 means 1; negative is an
	// error); MaxThink, when positive, caps a scaled think time.
	ThinkScale float64
	MaxThink   time.Duration
	// ThinkIsGap says think times are whole send-to-send gaps (the source
	// kept no response ends): turn t+1 is then intended at turn t's
	// intended time plus the gap, or at its response's end if later.
	ThinkIsGap bool
	// MaxInFlight caps turns in flight; a turn over it is dropped and
	// counted, and its session goes on. Zero means no cap.
	MaxInFlight int
	// DrainTimeout bounds the wait, after the last session started, for
	// every session to end (zero: DefaultDrainTimeout). At the bound turns
	// in flight are cancelled and recorded as ClassUnfinished; turns not
	// yet due are never sent.
	DrainTimeout time.Duration
	// Prepare is how many sessions' first turns are built ahead of their
	// start; zero means 16. Later turns are built while the previous one
	// runs.
	Prepare int
}

// SessionsResult says how a session replay ended.
type SessionsResult struct {
	Scheduled int // sessions
	Started   int // sessions begun
	Sent      int // turns handed to the Doer
	Dropped   int // turns refused by the in-flight cap
	Unsent    int // turns never sent: the bound or a cancel came first
	Canceled  bool
	Drained   bool // every session ended before the drain bound
	End       time.Time
}

// Run replays the schedule and waits for the drain. It returns early only
// when ctx ends, after cancelling and recording what was in flight.
func (d *Sessions) Run(ctx context.Context) (SessionsResult, error) {
	switch {
	case d.Doer == nil || d.Source == nil || d.Recorder == nil:
		return SessionsResult{}, errors.New("dispatch: Sessions needs a Doer, a Source and a Recorder")
	case d.ThinkScale < 0 || math.IsNaN(d.ThinkScale) || math.IsInf(d.ThinkScale, 0):
		return SessionsResult{}, fmt.Errorf("dispatch: think time scale %g must be a positive number", d.ThinkScale)
	case d.MaxThink < 0:
		return SessionsResult{}, fmt.Errorf("dispatch: maximum think time %v must not be negative", d.MaxThink)
	}
	drainTimeout := d.DrainTimeout
	if drainTimeout <= 0 {
		drainTimeout = DefaultDrainTimeout
	}
	r := &sessionRun{d: d, start: d.Start, scale: d.ThinkScale}
	if r.start.IsZero() {
		r.start = time.Now()
	}
	if r.scale == 0 {
		r.scale = 1
	}
	r.preparer, _ = d.Doer.(Preparer)
	r.sessions, _ = d.Recorder.(SessionRecorder)
	var cancelReqs context.CancelFunc
	r.reqCtx, cancelReqs = context.WithCancel(context.WithoutCancel(ctx))
	defer cancelReqs()
	res := SessionsResult{Scheduled: len(d.Schedule)}
	prepared, stopPrep := d.prepareFirst(ctx, r)
	defer stopPrep()
	var roots sync.WaitGroup
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
slots:
	for k, off := range d.Schedule {
		intended := r.start.Add(off)
		var first firstTurn
		select {
		case first = <-prepared:
		case <-ctx.Done():
			res.Canceled = true
			break slots
		}
		if wait := time.Until(intended); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				res.Canceled = true
				break slots
			}
		}
		res.Started++
		roots.Add(1)
		go func() {
			defer roots.Done()
			r.session(d.FirstIndex+k, first, intended, off >= d.MeasureFrom)
		}()
	}
	done := make(chan struct{})
	go func() { roots.Wait(); close(done) }()
	bound := time.NewTimer(drainTimeout)
	defer bound.Stop()
	select {
	case <-done:
		res.Drained = !res.Canceled
	case <-bound.C:
		r.boundAt.Store(int64(time.Since(r.start)))
		r.drainExpired.Store(true)
		cancelReqs()
		<-done
	case <-ctx.Done():
		res.Canceled = true
		cancelReqs()
		<-done
	}
	r.builders.Wait()
	res.End = time.Now()
	res.Sent, res.Dropped, res.Unsent = int(r.sent.Load()), int(r.dropped.Load()), int(r.unsent.Load())
	if res.Canceled {
		return res, ctx.Err()
	}
	return res, nil
}

// firstTurn is a session's top-level session with its first turn built.
type firstTurn struct {
	root *fixtures.Session
	req  workload.Request
}

// prepareFirst builds the sessions' first turns ahead of their starts on
// one goroutine, so that building a long prompt is not paid as send lag.
func (d *Sessions) prepareFirst(ctx context.Context, r *sessionRun) (<-chan firstTurn, func()) {
	ahead := d.Prepare
	if ahead <= 0 {
		ahead = 16
	}
	ch := make(chan firstTurn, ahead)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := range d.Schedule {
			i := d.FirstIndex + k
			root := d.Source.Session(i)
			select {
			case ch <- firstTurn{root, r.build(i, root, 0)}:
			case <-stop:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, func() { close(stop); wg.Wait() }
}

// sessionRun is one replay's shared state.
type sessionRun struct {
	d        *Sessions
	start    time.Time
	scale    float64
	preparer Preparer
	sessions SessionRecorder
	// Turns run under reqCtx, which the drain bound or the caller's
	// cancellation ends; drainExpired tells them which it was.
	reqCtx       context.Context
	drainExpired atomic.Bool
	boundAt      atomic.Int64 // offset from start (monotonic)

	inFlight, sent, dropped, unsent atomic.Int64
	builders                        sync.WaitGroup
}

// tally is what one session's threads add up while it runs.
type tally struct {
	firstSent time.Time // set by the top-level session's first turn only
	unsent    atomic.Int64
	cut       atomic.Bool
}

// session replays arrival i's session tree from intended and reports it.
func (r *sessionRun) session(i int, first firstTurn, intended time.Time, rec bool) {
	var t tally
	r.thread(i, first.root, first.req, intended, rec, &t, true)
	if rec && r.sessions != nil {
		r.sessions.SessionEnded(intended, t.firstSent, int(t.unsent.Load()), t.cut.Load())
	}
}

// child is a running sub-agent: done closes when it ends, at end.
type child struct {
	done chan struct{}
	end  time.Time
}

// thread replays session s from start, its sub-agents beside it, and
// returns when all of it has ended: at the last response's end.
func (r *sessionRun) thread(i int, s *fixtures.Session, req workload.Request, start time.Time, rec bool, t *tally, root bool) time.Time {
	children := make(map[string]*child, len(s.Children))
	for _, c := range s.Children {
		ch := &child{done: make(chan struct{})}
		children[c.ID] = ch
		go func() {
			defer close(ch.done)
			ch.end = r.thread(i, c, r.build(i, c, 0), start.Add(c.StartOffset), rec, t, false)
		}()
	}
	var end, intended time.Time
	var next <-chan workload.Request
	for k, turn := range s.Turns {
		base := start
		if k > 0 {
			base = end
		}
		ok := true
		for _, id := range turn.WaitFor {
			select {
			case <-children[id].done:
				base = later(base, children[id].end)
			case <-r.reqCtx.Done():
				ok = false
			}
		}
		if k > 0 {
			think := r.think(turn.Think)
			if r.d.ThinkIsGap {
				intended = later(base, intended.Add(think))
			} else {
				intended = base.Add(think)
			}
			req = <-next
		} else {
			intended = base.Add(r.think(turn.Think))
		}
		if !ok || !r.sleepUntil(intended) {
			r.cut(t, len(s.Turns)-k)
			break
		}
		if k+1 < len(s.Turns) {
			next = r.buildAsync(i, s, k+1)
		}
		var sent time.Time
		end, sent, ok = r.send(req, intended, rec)
		if root && k == 0 {
			t.firstSent = sent
		}
		if !ok {
			r.cut(t, len(s.Turns)-k-1)
			break
		}
	}
	for _, ch := range children {
		<-ch.done
		end = later(end, ch.end)
	}
	return end
}

// cut notes that the step's end stopped a session with unsent turns left.
func (r *sessionRun) cut(t *tally, unsent int) {
	t.unsent.Add(int64(unsent))
	r.unsent.Add(int64(unsent))
	t.cut.Store(true)
}

// think is a recorded think time as the replay waits it.
func (r *sessionRun) think(d time.Duration) time.Duration {
	d = time.Duration(float64(d) * r.scale)
	if r.d.MaxThink > 0 && d > r.d.MaxThink {
		d = r.d.MaxThink
	}
	return d
}

// sleepUntil waits for t; false when the step ended first.
func (r *sessionRun) sleepUntil(t time.Time) bool {
	if wait := time.Until(t); wait > 0 {
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.reqCtx.Done():
			return false
		}
	}
	return r.reqCtx.Err() == nil
}

// send sends one turn at its intended time and returns when its response
// ended, when it was sent, and whether the session may go on (false once
// the drain bound or a cancel cut the turn).
func (r *sessionRun) send(req workload.Request, intended time.Time, rec bool) (end, sent time.Time, ok bool) {
	if r.d.MaxInFlight > 0 && r.inFlight.Load() >= int64(r.d.MaxInFlight) {
		r.dropped.Add(1)
		if rec {
			r.d.Recorder.Dropped(intended)
		}
		return time.Now(), time.Time{}, true
	}
	r.sent.Add(1)
	r.inFlight.Add(1)
	if rec {
		r.d.Recorder.Started(intended)
	}
	out := client.Outcome{Request: req, Intended: intended}
	r.d.Doer.Do(r.reqCtx, req, &out)
	end, ok = time.Now(), true
	if !out.OK() && r.reqCtx.Err() != nil {
		ok = false
		if r.drainExpired.Load() {
			out.Class = client.ClassUnfinished
			end = r.start.Add(time.Duration(r.boundAt.Load()))
		} else {
			out.Class = client.ClassCanceled
		}
	}
	r.inFlight.Add(-1)
	if rec {
		r.d.Recorder.Record(&out, end)
	}
	return end, out.Sent, ok
}

// build builds turn t of s, its body encoded when the Doer can.
func (r *sessionRun) build(i int, s *fixtures.Session, t int) workload.Request {
	req := r.d.Source.TurnRequest(i, s, t)
	if r.preparer != nil {
		r.preparer.Prepare(&req)
	}
	return req
}

// buildAsync builds turn t while the previous one runs.
func (r *sessionRun) buildAsync(i int, s *fixtures.Session, t int) <-chan workload.Request {
	ch := make(chan workload.Request, 1)
	r.builders.Add(1)
	go func() {
		defer r.builders.Done()
		ch <- r.build(i, s, t)
	}()
	return ch
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

package dispatch

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/workload"
)

// sessionRun is one replay's shared state.
type sessionRun struct {
	d        *SessionLoop
	start    time.Time
	scale    float64
	preparer Preparer
	sessions SessionSink
	// unmeasured hears the warm-up sessions' turns; nil when the
	// sink keeps no record of them.
	unmeasured UnmeasuredSink
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

// child is a sub-agent: once started, done closes when it ends, at end.
type child struct {
	started bool // written and read by its parent's thread alone
	done    chan struct{}
	end     time.Time
}

// thread replays session s from start, its sub-agents beside it, and
// returns when all of it has ended: at the last response's end.
func (r *sessionRun) thread(i int, s *fixtures.Session, req workload.Request, start time.Time, rec bool, t *tally, root bool) time.Time {
	children := make(map[string]*child, len(s.Children))
	spawnedBy := make([][]spawned, len(s.Turns)) // sub-agents each turn's response starts
	launch := func(c *fixtures.Session, at time.Time) {
		ch := children[c.ID]
		ch.started = true
		go func() {
			defer close(ch.done)
			ch.end = r.thread(i, c, r.build(i, c, 0), at, rec, t, false)
		}()
	}
	for _, c := range s.Children {
		children[c.ID] = &child{done: make(chan struct{})}
		if sp := s.SpawnOf(c); sp.Turn >= 0 {
			spawnedBy[sp.Turn] = append(spawnedBy[sp.Turn], spawned{c, sp.Gap})
		} else {
			launch(c, start.Add(c.StartOffset))
		}
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
		// The sub-agents this response asked for start after it ended, by
		// the recorded wait: a client-side delay, so scaled as think is.
		for _, sp := range spawnedBy[k] {
			launch(sp.session, end.Add(r.think(sp.gap)))
		}
	}
	for _, c := range s.Children {
		ch := children[c.ID]
		if !ch.started {
			// Its parent was cut before the response that starts it.
			r.cut(t, turnsIn(c))
			continue
		}
		<-ch.done
		end = later(end, ch.end)
	}
	return end
}

// spawned is a sub-agent a response starts, gap after the response's end
// as recorded.
type spawned struct {
	session *fixtures.Session
	gap     time.Duration
}

// turnsIn counts s's turns and its sub-agents'.
func turnsIn(s *fixtures.Session) int {
	n := 0
	fixtures.Walk([]*fixtures.Session{s}, func(s *fixtures.Session) { n += len(s.Turns) })
	return n
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
			recordDrop(r.d.Sink, req, intended)
		} else if r.unmeasured != nil {
			r.unmeasured.UnmeasuredDrop(req, intended)
		}
		return time.Now(), time.Time{}, true
	}
	r.sent.Add(1)
	r.inFlight.Add(1)
	if rec {
		r.d.Sink.Started(intended)
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
		r.d.Sink.Record(&out, end)
	} else if r.unmeasured != nil {
		r.unmeasured.Unmeasured(&out, end)
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

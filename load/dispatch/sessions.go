package dispatch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/load/workload"
)

// SessionSource yields the sessions of a replay: Session(i) is the
// top-level session arrival i replays, TurnRequest builds turn t of it or of
// one of its sub-agents. workload.Sessions is the one the run loop uses. It
// must be safe for concurrent use.
type SessionSource interface {
	Session(i int) *fixtures.Session
	TurnRequest(i int, s *fixtures.Session, t int) workload.Request
}

// SessionSink is an OutcomeSink that also hears how each measured session
// ended (observe.Turns is one): its intended start, when its first turn was
// sent (zero when it never was), how many of its turns (sub-agents'
// included) were never sent because the step ended first, and whether the
// step's end cut it (a turn unfinished or never sent).
type SessionSink interface {
	OutcomeSink
	SessionEnded(intended, firstSent time.Time, unsent int, cut bool)
}

// SessionLoop replays sessions open-loop at the session level: session k
// starts at Start+Schedule[k] whatever the server does, and inside it each
// turn waits for the previous response, as the recorded client did. Turn
// t+1 is intended at the end of turn t's response (and of the sub-agents
// it waits for) plus its think time, scaled and capped. A sub-agent runs
// beside its parent; it starts after the replayed response that started it,
// by the recorded wait scaled as think is (fixtures.Session.SpawnOf), or,
// where the source kept no response ends, at its StartOffset after its
// parent's start. Intended times inside a session are computed as the
// replay runs, from the responses it gets; TTFT counts from them, so a late
// client shows as send lag, never as a shorter wait.
type SessionLoop struct {
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
	// Sender's cap applies to turns: a turn over it is dropped and
	// counted, and its session goes on. The drain bound runs from the
	// last session's start; at it, turns in flight are cancelled and
	// recorded as ClassUnfinished, and turns not yet due are never sent.
	Sender
	Sink OutcomeSink
	// ThinkScale multiplies every think time (0 means 1; negative is an
	// error); MaxThink, when positive, caps a scaled think time.
	ThinkScale float64
	MaxThink   time.Duration
	// ThinkIsGap says think times are whole send-to-send gaps (the source
	// kept no response ends): turn t+1 is then intended at turn t's
	// intended time plus the gap, or at its response's end if later.
	ThinkIsGap bool
	// Lookahead is how many sessions' first turns are built ahead of their
	// start; zero means 16. Later turns are built while the previous one
	// runs.
	Lookahead int
}

// SessionLoopResult says how a session replay ended.
type SessionLoopResult struct {
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
func (l *SessionLoop) Run(ctx context.Context) (SessionLoopResult, error) {
	switch {
	case l.Doer == nil || l.Source == nil || l.Sink == nil:
		return SessionLoopResult{}, errors.New("dispatch: Sessions needs a Doer, a Source and a Sink")
	case l.ThinkScale < 0 || math.IsNaN(l.ThinkScale) || math.IsInf(l.ThinkScale, 0):
		return SessionLoopResult{}, fmt.Errorf("dispatch: think time scale %g must be a positive number", l.ThinkScale)
	case l.MaxThink < 0:
		return SessionLoopResult{}, fmt.Errorf("dispatch: maximum think time %v must not be negative", l.MaxThink)
	}
	r := &sessionRun{d: l, start: l.Start, scale: l.ThinkScale}
	if r.start.IsZero() {
		r.start = time.Now()
	}
	if r.scale == 0 {
		r.scale = 1
	}
	r.preparer, _ = l.Doer.(Preparer)
	r.sessions, _ = l.Sink.(SessionSink)
	r.unmeasured, _ = l.Sink.(UnmeasuredSink)
	var cancelReqs context.CancelFunc
	r.reqCtx, cancelReqs = context.WithCancel(context.WithoutCancel(ctx))
	defer cancelReqs()
	res := SessionLoopResult{Scheduled: len(l.Schedule)}
	prepared, stopPrep := l.prepareFirst(ctx, r)
	defer stopPrep()
	var roots sync.WaitGroup
	wait := newWaiter(ctx, l.Wait)
	defer wait.close()
slots:
	for k, off := range l.Schedule {
		intended := r.start.Add(off)
		var first firstTurn
		select {
		case first = <-prepared:
		case <-ctx.Done():
			res.Canceled = true
			break slots
		}
		// Sessions start as the dispatcher sends: punctually. Turns inside
		// a session wait on a plain timer (sleepUntil): thousands of them
		// may wait at once, and a fine wait each would hold a kernel timer,
		// a file descriptor.
		if !wait.until(ctx, intended) {
			res.Canceled = true
			break slots
		}
		res.Started++
		roots.Add(1)
		go func() {
			defer roots.Done()
			r.session(l.FirstIndex+k, first, intended, off >= l.MeasureFrom)
		}()
	}
	drained, canceled := awaitDrain(ctx, roots.Wait, l.DrainTimeout, func() {
		r.boundAt.Store(int64(time.Since(r.start)))
		r.drainExpired.Store(true)
	}, cancelReqs)
	// A replay cut short drained nothing, however its sessions ended.
	res.Drained, res.Canceled = drained && !res.Canceled, res.Canceled || canceled
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
func (l *SessionLoop) prepareFirst(ctx context.Context, r *sessionRun) (<-chan firstTurn, func()) {
	ahead := l.Lookahead
	if ahead <= 0 {
		ahead = 16
	}
	ch := make(chan firstTurn, ahead)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := range l.Schedule {
			i := l.FirstIndex + k
			root := l.Source.Session(i)
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

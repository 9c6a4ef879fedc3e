package observe

import (
	"sync"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/report"
)

// Cohort is what a step in progress can be judged on without favouring
// the fast: the longest run of its measured requests, in send order, that
// have all finished. A look at the requests finished so far, whatever
// their order, would leave out exactly the slow ones still in flight, and
// pass a step that the full window fails. A cohort grows only when its
// oldest unfinished request ends, so each look judges the first n
// requests the schedule sent, complete, as a sequential test needs.
//
// Started, Dropped and Record may be called from any goroutine, as the
// dispatcher does; Summary from one goroutine at a time.
type Cohort struct {
	measureFrom time.Time

	mu       sync.Mutex
	order    []time.Time                // intended times of measured requests not yet released, in send order
	finished map[time.Time][]finishedAt // their outcomes, by intended time, once finished

	rec *Recorder // the released requests; only Summary touches it
}

type finishedAt struct {
	o       *client.Outcome // nil: dropped by the in-flight cap
	at      time.Time
	dropped bool
}

// NewCohort returns the cohort of a step whose measured window starts at
// measureFrom and is planned to last d.
func NewCohort(measureFrom time.Time, d time.Duration, limits PerRequestLimits, lengths LengthCheck) *Cohort {
	return &Cohort{measureFrom: measureFrom, finished: map[time.Time][]finishedAt{},
		rec: NewRecorder(measureFrom, d, limits, lengths)}
}

// Started notes a measured request handed to the sender.
func (c *Cohort) Started(intended time.Time) {
	if intended.Before(c.measureFrom) {
		return
	}
	c.mu.Lock()
	c.order = append(c.order, intended)
	c.mu.Unlock()
}

// Dropped notes a measured request the in-flight cap kept back: it is
// finished as soon as it is due.
func (c *Cohort) Dropped(intended time.Time) {
	if intended.Before(c.measureFrom) {
		return
	}
	c.mu.Lock()
	c.order = append(c.order, intended)
	c.finished[intended] = append(c.finished[intended], finishedAt{at: intended, dropped: true})
	c.mu.Unlock()
}

// Record notes a finished request; the cohort keeps o.
func (c *Cohort) Record(o *client.Outcome, at time.Time) {
	if o.Intended.Before(c.measureFrom) {
		return
	}
	c.mu.Lock()
	c.finished[o.Intended] = append(c.finished[o.Intended], finishedAt{o: o, at: at})
	c.mu.Unlock()
}

// Summary releases the requests that now complete the cohort and
// summarises it over the window from its start to horizon: the intended
// time of the oldest request still in flight, or now when none is.
// Requests after the horizon have finished but wait for it. Released is
// how many requests the cohort holds.
func (c *Cohort) Summary(now time.Time) (s report.StepReport, ev Evidence, horizon time.Time, released int) {
	var out []finishedAt
	var intended []time.Time
	c.mu.Lock()
	for len(c.order) > 0 {
		head := c.order[0]
		done := c.finished[head]
		if len(done) == 0 {
			break
		}
		out, intended = append(out, done[0]), append(intended, head)
		if len(done) == 1 {
			delete(c.finished, head)
		} else {
			c.finished[head] = done[1:]
		}
		c.order = c.order[1:]
	}
	horizon = now
	if len(c.order) > 0 {
		horizon = c.order[0]
	}
	c.mu.Unlock()
	for i, f := range out {
		if f.dropped {
			c.rec.Dropped(intended[i])
			continue
		}
		c.rec.Started(intended[i])
		c.rec.Record(f.o, f.at)
	}
	s, ev = c.rec.summaryUntil(horizon)
	return s, ev, horizon, c.rec.measuredCount()
}

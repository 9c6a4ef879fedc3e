package observe

import (
	"sync"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// Cohort is what a step in progress can be judged on without favouring
// the fast: the longest run of its measured requests, in send order, that
// have all finished. A look at the requests finished so far, whatever
// their order, would leave out exactly the slow ones still in flight, and
// pass a step that the full window fails. A cohort grows only when its
// oldest unfinished request ends, so each look judges the first n
// requests the schedule sent, complete, as a sequential test needs.
//
// TTFT is known at a request's first token, long before it ends: TTFT has
// a cohort of its own, the run of requests in send order that have all had
// their first token (or ended without one), which FirstToken grows, so
// that a step whose outputs take seconds is not judged on a few requests.
//
// Started, Dropped, FirstToken and Record may be called from any
// goroutine, as the dispatcher does; Summary from one at a time.
type Cohort struct {
	measureFrom time.Time

	mu        sync.Mutex
	order     []time.Time                // intended times of measured requests not yet released, in send order
	finished  map[time.Time][]finishedAt // their outcomes, by intended time, once finished
	ttftOrder []time.Time                // the same for the TTFT cohort
	firsts    map[time.Time][]time.Time  // their first tokens (zero: none came)

	rec   *Recorder // the released requests; only Summary touches it
	ttft  *stats.Histogram
	ttftC *stats.Clusters
}

type finishedAt struct {
	o       *client.Outcome // nil: dropped by the in-flight cap
	at      time.Time
	dropped bool
}

// NewCohort returns the cohort of a step whose measured window starts at
// measureFrom and is planned to last d.
func NewCohort(measureFrom time.Time, d time.Duration, limits PerRequestLimits, lengths LengthCheck) *Cohort {
	return &Cohort{measureFrom: measureFrom, finished: map[time.Time][]finishedAt{}, firsts: map[time.Time][]time.Time{},
		rec: NewRecorder(measureFrom, d, limits, lengths), ttft: stats.NewHistogram(), ttftC: stats.NewClusters()}
}

// Started notes a measured request handed to the sender.
func (c *Cohort) Started(intended time.Time) {
	if intended.Before(c.measureFrom) {
		return
	}
	c.mu.Lock()
	c.order = append(c.order, intended)
	c.ttftOrder = append(c.ttftOrder, intended)
	c.mu.Unlock()
}

// FirstToken notes a measured request's first token (zero: it ended
// without one).
func (c *Cohort) FirstToken(intended, first time.Time) {
	if intended.Before(c.measureFrom) {
		return
	}
	c.mu.Lock()
	c.firsts[intended] = append(c.firsts[intended], first)
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
	c.ttftOrder = append(c.ttftOrder, intended)
	c.firsts[intended] = append(c.firsts[intended], time.Time{})
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
	firsts := c.releaseFirsts()
	c.mu.Unlock()
	for _, f := range firsts {
		c.ttft.Record(f.first.Sub(f.intended))
		c.ttftC.Record(int(f.intended.Sub(c.measureFrom)/time.Second), f.first.Sub(f.intended))
	}
	for i, f := range out {
		if f.dropped {
			c.rec.Dropped(intended[i])
			continue
		}
		c.rec.Started(intended[i])
		c.rec.Record(f.o, f.at)
	}
	s, ev = c.rec.summaryUntil(horizon)
	// TTFT from its own cohort, which runs ahead of the finished one.
	s.Histograms[report.MetricTTFT], s.Clusters[report.MetricTTFT] = c.ttft, c.ttftC
	s.TTFT = c.ttft.Summary()
	return s, ev, horizon, c.rec.measuredCount()
}

type firstAt struct{ intended, first time.Time }

// releaseFirsts takes the requests that now extend the TTFT cohort, those
// with a first token; call it with c.mu held.
func (c *Cohort) releaseFirsts() []firstAt {
	var out []firstAt
	for len(c.ttftOrder) > 0 {
		head := c.ttftOrder[0]
		fs := c.firsts[head]
		if len(fs) == 0 {
			break
		}
		if !fs[0].IsZero() {
			out = append(out, firstAt{head, fs[0]})
		}
		if len(fs) == 1 {
			delete(c.firsts, head)
		} else {
			c.firsts[head] = fs[1:]
		}
		c.ttftOrder = c.ttftOrder[1:]
	}
	return out
}

package observe

import (
	"sync"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
	"github.com/llmslo/llmslo/load/workload"
)

// TurnSink is what Turns passes every turn on to: the step's Recorder, or
// anything wrapping it.
type TurnSink interface {
	Started(intended time.Time)
	Dropped(intended time.Time)
	Record(o *client.Outcome, at time.Time)
}

// Turns measures a session replay beside the step's Recorder: it splits
// turns by position (a session's first turn, whose prompt no cache has
// seen, against the later ones that resend a context) and counts sessions,
// how many started and at what rate, which ended and which the step's end
// cut. It measures only the measured sessions' turns and passes each on to
// the sink; the warm-up sessions' turns it only passes on, to a sink that
// writes records. It is safe for concurrent use.
type Turns struct {
	sink    TurnSink
	records turnRecords // the sink, when it writes per-request records
	warmup  warmupSink  // the sink, when it counts the warm-up's turns

	mu           sync.Mutex
	first, later position
	counts       report.SessionCounts
	firstSends   []time.Time // each measured session's first send
}

type position struct {
	sent, completed, failed int
	input, cached           int64
	ttft, itl, e2el         *stats.Histogram
}

func newPosition() position {
	return position{ttft: stats.NewHistogram(), itl: stats.NewHistogram(), e2el: stats.NewHistogram()}
}

// turnRecords is a sink that writes per-request records (RecordsTee):
// it wants dropped turns with their requests, and the warm-up's turns.
type turnRecords interface {
	DroppedRequest(req workload.Request, intended time.Time)
	Unmeasured(o *client.Outcome, at time.Time)
	UnmeasuredDrop(req workload.Request, intended time.Time)
}

// NewTurns measures turns and sessions, passing every turn on to sink.
func NewTurns(sink TurnSink) *Turns {
	t := &Turns{sink: sink, first: newPosition(), later: newPosition()}
	t.records, _ = sink.(turnRecords)
	t.warmup, _ = sink.(warmupSink)
	return t
}

// Started passes a send on.
func (t *Turns) Started(intended time.Time) { t.sink.Started(intended) }

// Dropped passes a drop by the in-flight cap on.
func (t *Turns) Dropped(intended time.Time) { t.sink.Dropped(intended) }

// DroppedRequest passes a drop on, with the request when the sink writes
// records.
func (t *Turns) DroppedRequest(req workload.Request, intended time.Time) {
	if t.records != nil {
		t.records.DroppedRequest(req, intended)
		return
	}
	t.sink.Dropped(intended)
}

// warmupSink is a sink that counts the warm-up's turns for progress
// (Recorder, RecordsTee).
type warmupSink interface{ WarmupEnded(o *client.Outcome) }

// Unmeasured passes on a turn of a session started in the warm-up, which
// is not measured: to be counted for progress, and written when the sink
// writes records.
func (t *Turns) Unmeasured(o *client.Outcome, at time.Time) {
	if t.warmup != nil {
		t.warmup.WarmupEnded(o)
	}
	if t.records != nil {
		t.records.Unmeasured(o, at)
	}
}

// UnmeasuredDrop is Unmeasured for a turn the in-flight cap dropped.
func (t *Turns) UnmeasuredDrop(req workload.Request, intended time.Time) {
	if t.records != nil {
		t.records.UnmeasuredDrop(req, intended)
	}
}

// Record files a finished turn by position, as the step's Recorder files
// requests (TTFT from the intended time, unfinished and abandoned turns as
// lower bounds, cancelled ones nowhere), and passes it on.
func (t *Turns) Record(o *client.Outcome, at time.Time) {
	t.sink.Record(o, at)
	t.mu.Lock()
	defer t.mu.Unlock()
	p := &t.later
	if o.Request.Turn == 0 {
		p = &t.first
		if o.Request.Agent != "" && !o.Sent.IsZero() {
			t.counts.SubAgents++
		}
	}
	if o.Class == client.ClassCanceled {
		return
	}
	if !o.Sent.IsZero() {
		p.sent++
	}
	switch o.Class {
	case "":
		p.completed++
		p.input += int64(o.PromptTokens)
		if o.CachedReported {
			p.cached += int64(o.CachedPromptTokens)
		}
		p.ttft.Record(o.First.Sub(o.Intended))
		p.e2el.Record(o.Last.Sub(o.Intended))
		for _, g := range o.ITL {
			p.itl.Record(g)
		}
	case client.ClassUnfinished, client.ClassStall, client.ClassTimeout:
		p.failed++
		if o.First.IsZero() {
			p.ttft.Record(at.Sub(o.Intended))
		} else {
			p.ttft.Record(o.First.Sub(o.Intended))
			for _, g := range o.ITL {
				p.itl.Record(g)
			}
			p.itl.Record(at.Sub(o.Last))
		}
		p.e2el.Record(at.Sub(o.Intended))
	default:
		p.failed++
	}
}

// SessionEnded counts a measured session (dispatch.SessionSink).
func (t *Turns) SessionEnded(_, firstSent time.Time, unsent int, cut bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.counts.Started++
	t.counts.TurnsNotSent += unsent
	if cut {
		t.counts.Cut++
	} else {
		t.counts.Completed++
	}
	if firstSent.IsZero() {
		return // its first turn was dropped
	}
	t.firstSends = append(t.firstSends, firstSent)
}

// Fill adds the sessions and turns to a step's report. A session step's
// rates count sessions, so it also replaces the report's achieved rate
// with the sessions' whose first turn was sent within the window
// [from, from+d), over its length; scheduled is how many the schedule
// started in it. The turns' own lateness stays in the evidence's counts,
// which client_saturation judges.
func (t *Turns) Fill(s *report.StepReport, scheduled int, from time.Time, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.counts
	c.Scheduled = scheduled
	s.Sessions = &c
	s.Turns = &report.TurnPositions{First: t.first.stats(), Later: t.later.stats()}
	inWindow := 0
	for _, at := range t.firstSends {
		if at.Before(from.Add(d)) {
			inWindow++
		}
	}
	s.Sessions.StartedInWindow = inWindow
	s.RateAchieved = windowRate(inWindow, d)
}

func (p *position) stats() report.TurnStats {
	return report.TurnStats{Sent: p.sent, Completed: p.completed, Failed: p.failed, InputTokens: p.input,
		CachedTokens: p.cached, TTFT: p.ttft.Summary(), ITL: p.itl.Summary(), E2EL: p.e2el.Summary()}
}

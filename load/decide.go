package load

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/workload"
)

// lookEvery is how often a step run until decided is looked at.
const lookEvery = time.Second

// decider looks at a step run until decided once a second, from the
// start of its measured window, and stops its schedule once
// verdict.JudgeLook finds its verdict decided and the floor is measured. It
// judges the step's cohort (observe.Cohort): its first requests in send
// order, all finished, so that the slow ones still in flight are never
// left out.
type decider struct {
	f       *stepFrame
	cohort  *observe.Cohort
	planned int // measured requests the cap holds
	stop    chan struct{}
	done    chan struct{}
	quit    chan struct{}
	record  report.UntilDecided
	// settled is the last baseline look's comparison when it lay within
	// the tolerance (verdict.Settled).
	settled []report.BaselineCheck
	// horizonS is how far into the window the last look's cohort reached.
	horizonS float64
}

// newDecider returns the decider of a step of planned measured requests,
// or nil when the step runs to its end: the plan's steps are not run until
// decided, or this one is an overload step.
func (f *stepFrame) newDecider(planned int) *decider {
	p := f.p
	// An overload step is judged by the overload gate on its whole window:
	// its shed requests would fail the error guard at the first look.
	if !p.UntilDecided || p.overload != nil {
		return nil
	}
	return &decider{
		f: f, planned: planned,
		cohort: observe.NewCohort(f.measureFrom, p.Duration, verdict.GoodputLimits(p.SLOs),
			p.Features.lengthCheck(p.Thresholds.Resolved().LengthTolerance, p.LengthsAdvisory)),
		stop: make(chan struct{}), done: make(chan struct{}), quit: make(chan struct{}),
		record: report.UntilDecided{MinS: p.minDuration().Seconds(), CapS: p.Duration.Seconds()},
	}
}

// sink is what the dispatcher records into: the step's own sink, and the
// cohort.
func (d *decider) sink(inner dispatch.OutcomeSink) dispatch.OutcomeSink {
	if d == nil {
		return inner
	}
	return &cohortTee{OutcomeSink: inner, cohort: d.cohort}
}

// stopCh is the schedule's Stop (nil: never).
func (d *decider) stopCh() <-chan struct{} {
	if d == nil {
		return nil
	}
	return d.stop
}

// start looks once a second until the step is decided, its window ends,
// or finish is called.
func (d *decider) start(ctx context.Context) {
	if d == nil {
		return
	}
	go func() {
		defer close(d.done)
		end := d.f.measureFrom.Add(d.f.p.Duration)
		for at := d.f.measureFrom.Add(lookEvery); at.Before(end); at = at.Add(lookEvery) {
			t := time.NewTimer(time.Until(at))
			select {
			case <-t.C:
			case <-d.quit:
				t.Stop()
				return
			case <-ctx.Done():
				t.Stop()
				return
			}
			elapsed := at.Sub(d.f.measureFrom).Seconds()
			if d.look(elapsed) {
				close(d.stop)
				return
			}
		}
	}()
}

// look judges the cohort at elapsed seconds into the window and records
// the look; it says whether the step is decided and may stop.
func (d *decider) look(elapsedS float64) bool {
	f, p := d.f, d.f.p
	now := f.measureFrom.Add(time.Duration(elapsedS * float64(time.Second)))
	s, ev, horizon, n := d.cohort.Summary(now)
	s.Name, s.RateTarget, s.Arrival = f.name, f.rate, p.Arrival.String()
	s.DurationS, s.WarmupS = horizon.Sub(f.measureFrom).Seconds(), p.Warmup.Seconds()
	if f.scraper != nil {
		s.Server = f.scraper.Peek(horizon)
	}
	s.Server.MaxNumSeqs = p.MaxNumSeqs
	baselineLook := verdict.IsBaselineLook(d.horizonS, s.DurationS, d.record.MinS, p.Duration.Seconds())
	d.horizonS = s.DurationS
	c := d.criteria(baselineLook)
	dec := verdict.JudgeLook(&s, ev, c)
	if baselineLook {
		d.settled = verdict.Settled(dec.Baseline)
	}
	d.record.SLOs = dec.SLOs
	d.record.Looks = append(d.record.Looks, report.Look{AtS: elapsedS, Requests: n, Bounds: dec.Bounds})
	d.record.Why = dec.Why
	if !dec.Decided || elapsedS < d.record.MinS || s.DurationS <= 0 {
		return false
	}
	d.record.Decided, d.record.AtS, d.record.Outcome = true, elapsedS, string(dec.Verdict)
	d.record.Why = fmt.Sprintf("decided at %s: %s", fmtSeconds(elapsedS), dec.Why)
	return true
}

// criteria is the plan's criteria for a step run until decided.
func (d *decider) criteria(baselineLook bool) verdict.Criteria {
	c := d.f.p.judge
	c.Sequential = &verdict.Sequential{CapS: d.f.p.Duration.Seconds(), PlannedRequests: d.planned, BaselineLook: baselineLook,
		Settled: d.settled}
	return c
}

// finish stops the looks and returns the decision's record for the step
// report, saying what was still open when the cap came first.
func (d *decider) finish() *report.UntilDecided {
	if d == nil {
		return nil
	}
	close(d.quit)
	<-d.done
	if !d.record.Decided {
		d.record.Why = fmt.Sprintf("not decided by the cap (%s), judged on the full window: %s", fmtSeconds(d.record.CapS), d.record.Why)
	}
	return &d.record
}

func fmtSeconds(s float64) string {
	return fmt.Sprintf("%g s", math.Round(s*10)/10)
}

// cohortTee passes what the dispatcher records to the step's sink and to
// the cohort, keeping the step sink's wish to know dropped requests.
type cohortTee struct {
	dispatch.OutcomeSink
	cohort *observe.Cohort
}

func (t *cohortTee) Started(intended time.Time) {
	t.OutcomeSink.Started(intended)
	t.cohort.Started(intended)
}

func (t *cohortTee) Dropped(intended time.Time) {
	t.OutcomeSink.Dropped(intended)
	t.cohort.Dropped(intended)
}

// FirstToken passes a first token to the cohort; the step's own sink
// reads it from the outcome at the end.
func (t *cohortTee) FirstToken(intended, first time.Time) { t.cohort.FirstToken(intended, first) }

func (t *cohortTee) Record(o *client.Outcome, at time.Time) {
	t.OutcomeSink.Record(o, at)
	t.cohort.Record(o, at)
}

func (t *cohortTee) DroppedRequest(req workload.Request, intended time.Time) {
	if r, ok := t.OutcomeSink.(dispatch.RequestDropSink); ok {
		r.DroppedRequest(req, intended)
	} else {
		t.OutcomeSink.Dropped(intended)
	}
	t.cohort.Dropped(intended)
}

package load

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
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
	// settled is the last baseline look's comparison when it decided
	// (verdict.Settled), and settledLevel its confidence; spending is what
	// the baseline looks spent.
	settled      []report.BaselineCheck
	settledLevel float64
	spending     verdict.BaselineSpending
}

// pair joins this decider to the other side's of a step run side by side
// (pairedLooks), or is nil; base says this is the base's side, which
// never looks on its own.
func (d *decider) pair() (pl *pairedLooks, base bool) { return d.f.p.paired, d.f.p.pairedBase }

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
	d := &decider{
		f: f, planned: planned,
		cohort: observe.NewCohort(f.measureFrom, p.Duration, verdict.GoodputLimits(p.SLOs),
			p.Features.lengthCheck(p.Thresholds.Resolved().LengthTolerance, p.LengthsAdvisory)),
		stop: make(chan struct{}), done: make(chan struct{}), quit: make(chan struct{}),
		record: report.UntilDecided{MinS: p.minDuration().Seconds(), CapS: p.Duration.Seconds()},
	}
	if p.paired != nil {
		d.stop = p.paired.stop // one stop ends both sides
	}
	if p.pairedBase {
		p.paired.join(d)
	}
	return d
}

// sink is what the dispatcher records into: the step's own sink, and the
// cohort.
func (d *decider) sink(inner dispatch.OutcomeSink) dispatch.OutcomeSink {
	if d == nil {
		return inner
	}
	return dispatch.Tee(inner, d.cohort)
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
	if _, base := d.pair(); base {
		close(d.done) // the other side looks at both, and stops both
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
				d.f.p.paired.decided(d.record.AtS)
				close(d.stop)
				return
			}
		}
	}()
}

// look judges the cohort at elapsed seconds into the window and records
// the look; it says whether the step is decided and may stop.
func (d *decider) look(elapsedS float64) bool {
	p := d.f.p
	s, ev, n := d.summaryAt(elapsedS)
	level := d.spending.Look(s.DurationS, d.record.MinS, p.Duration.Seconds()) // 0: no comparison now
	c := d.criteria(level)
	baseOpen := ""
	if pl, _ := d.pair(); pl != nil {
		c.Baseline, baseOpen = pl.baseLook(elapsedS)
		c.BaselineTolerance, c.BaselinePaired, c.BaselineIsBase = pl.tolerance, true, true
	}
	dec := verdict.JudgeLook(&s, ev, c)
	if level > 0 {
		d.settled, d.settledLevel = verdict.Settled(dec.Baseline), level
	}
	d.record.SLOs = dec.SLOs
	d.record.Looks = append(d.record.Looks, report.Look{AtS: elapsedS, Requests: n, Bounds: dec.Bounds})
	d.record.Why = dec.Why
	if dec.Decided && baseOpen != "" && (dec.Verdict == report.VerdictPass || len(verdict.Regressions(dec.Baseline)) > 0) {
		// Only a failure of this side's own stands without the base.
		dec.Decided, d.record.Why = false, baseOpen
	}
	if !dec.Decided || elapsedS < d.record.MinS || s.DurationS <= 0 {
		return false
	}
	d.record.Decided, d.record.AtS, d.record.Outcome = true, elapsedS, string(dec.Verdict)
	d.record.Why = fmt.Sprintf("decided at %s: %s", fmtSeconds(elapsedS), dec.Why)
	return true
}

// summaryAt is the cohort's summary at elapsedS seconds into the window,
// as the step's report would hold it, with the requests it released.
func (d *decider) summaryAt(elapsedS float64) (report.StepReport, observe.Evidence, int) {
	f, p := d.f, d.f.p
	now := f.measureFrom.Add(time.Duration(elapsedS * float64(time.Second)))
	s, ev, horizon, n := d.cohort.Summary(now)
	s.Name, s.RateTarget, s.Arrival = f.name, f.rate, p.Arrival.String()
	s.DurationS, s.WarmupS = horizon.Sub(f.measureFrom).Seconds(), p.Warmup.Seconds()
	if f.scraper != nil {
		s.Server = f.scraper.Peek(horizon)
	}
	s.Server.MaxNumSeqs = p.MaxNumSeqs
	return s, ev, n
}

// criteria is the plan's criteria for a step run until decided, comparing
// with the baseline at confidence level (0: not at this look).
func (d *decider) criteria(level float64) verdict.Criteria {
	c := d.f.p.judge
	c.Sequential = &verdict.Sequential{CapS: d.f.p.Duration.Seconds(), PlannedRequests: d.planned, BaselineLevel: level,
		Settled: d.settled}
	return c
}

// decidedOn is the baseline comparison a decided step stopped on (the
// last baseline look's, when it decided the comparison), which its final
// judgement keeps: nil when the step was not decided or no comparison
// decided.
func (d *decider) decidedOn() []report.BaselineCheck {
	if d == nil || !d.record.Decided {
		return nil
	}
	return d.settled
}

// finish stops the looks and returns the decision's record for the step
// report, saying what was still open when the cap came first.
func (d *decider) finish() *report.UntilDecided {
	if d == nil {
		return nil
	}
	close(d.quit)
	<-d.done
	pl, base := d.pair()
	if base {
		d.record = pl.baseRecord()
	}
	if !d.record.Decided {
		d.record.Why = fmt.Sprintf("not decided by the cap (%s), judged on the full window: %s", fmtSeconds(d.record.CapS), d.record.Why)
	}
	if compares := d.f.p.judge.Baseline != nil || (pl != nil && !base); compares && d.decidedOn() != nil {
		d.record.BaselineConfidence = d.settledLevel
	} else if compares {
		d.record.BaselineConfidence = d.spending.Rest() // what the looks left
	}
	return &d.record
}

func fmtSeconds(s float64) string {
	return fmt.Sprintf("%g s", math.Round(s*10)/10)
}

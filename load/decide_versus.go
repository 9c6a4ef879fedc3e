package load

import (
	"fmt"
	"sync"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
)

// pairedLooks joins the two deciders of a step run side by side until
// decided (Plan.Versus with UntilDecided). This side's decider looks at
// both cohorts at the same moments: it compares its own with the base's
// as a baseline look compares with a recorded run, and judges the base's
// on its own, so that a hazard on the base's side keeps the step open
// unless this side fails on its own. One stop ends both schedules, so both
// sides are sent the same requests; the base's decider never looks.
type pairedLooks struct {
	stop      chan struct{}
	tolerance float64

	mu   sync.Mutex
	base *decider
	// record is the base's: its looks, and how its step ended.
	record report.UntilDecided
}

// join registers the base side's decider.
func (pl *pairedLooks) join(d *decider) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.base, pl.record = d, d.record
}

// baseLook judges the base's cohort at elapsedS seconds into the window and
// records the look. It returns the base's step, judged, as the baseline
// this side's look compares with, and why the step stays open on the
// base's account ("" when it need not).
func (pl *pairedLooks) baseLook(elapsedS float64) (*report.Report, string) {
	pl.mu.Lock()
	b := pl.base
	pl.mu.Unlock()
	if b == nil {
		return nil, "the base side's step has not started"
	}
	s, ev, n := b.summaryAt(elapsedS)
	look := verdict.JudgeLook(&s, ev, b.criteria(0))
	look.Apply(&s) // the base's SLO results, which the comparison reads
	pl.mu.Lock()
	pl.record.SLOs = look.SLOs
	pl.record.Looks = append(pl.record.Looks, report.Look{AtS: elapsedS, Requests: n, Bounds: look.Bounds})
	pl.mu.Unlock()
	open := ""
	if look.Refused {
		open = "the base side: " + look.Why
	}
	return &report.Report{Steps: []report.StepReport{s}}, open
}

// decided notes that this side's step was decided atS seconds into the
// window, which stopped both.
func (pl *pairedLooks) decided(atS float64) {
	if pl == nil {
		return
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.record.Decided, pl.record.AtS = true, atS
	pl.record.Why = fmt.Sprintf("stopped at %s with the side compared with it, whose step was decided", fmtSeconds(atS))
}

// baseRecord is the base's record once its step has ended.
func (pl *pairedLooks) baseRecord() report.UntilDecided {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.record
}

package load

import (
	"context"
	"fmt"
	"slices"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/tune"
	"github.com/llmslo/llmslo/load/verdict"
)

// overloadTries bounds how many admission limits the last step tries.
const overloadTries = 3

// overload runs the session's last step: the overload gate at
// OverloadFactor × the final knee, on the final server with Protect's
// admission limit (a URL target as it is: its flags cannot be set). When
// the gate fails only because the admitted requests broke an SLO while the
// excess was shed fast, the limit let too many in at once (a server bound
// by compute slows every request as more run): the step runs again with
// the lower limit package tune names, and Protect keeps the one that
// passed.
func (l *tuneLoop) overload(ctx context.Context, p *report.Protect, o verdict.Overload) error {
	if p == nil || p.MaxNumQueuedReqs == 0 {
		return nil
	}
	_, variable := l.plan.Target.(Variable)
	first := p.MaxNumQueuedReqs
	for try := 1; ; try++ {
		g, err := l.overloadStep(ctx, p, o)
		if err != nil || g == nil {
			return err
		}
		lower, ok := tune.LowerLimit(p.MaxNumQueuedReqs, g)
		if g.Pass || !ok || !variable || try == overloadTries {
			if g.Pass && p.MaxNumQueuedReqs != first {
				p.Note = fmt.Sprintf("lowered from --max-num-queued-reqs %d, with which the admitted requests broke an SLO at %g× the knee: "+
					"more requests at once slowed every one", first, OverloadFactor)
			}
			return nil
		}
		p.MaxNumQueuedReqs, p.Flag = lower, fmt.Sprintf("--max-num-queued-reqs %d", lower)
	}
}

// overloadStep runs the overload gate once with Protect's limit and adds
// the step to the session's report. The session's verdict takes the
// last try's.
func (l *tuneLoop) overloadStep(ctx context.Context, p *report.Protect, o verdict.Overload) (*report.OverloadGate, error) {
	o.QueuedReqs = p.MaxNumQueuedReqs
	plan := l.plan
	plan.Rates, plan.Overload = []float64{tune.RoundRate(OverloadFactor * p.KneeRate)}, &o
	limit := tune.Change{Flag: "--max-num-queued-reqs", Value: fmt.Sprint(p.MaxNumQueuedReqs)}
	label := "overload " + limit.String()
	if v, ok := l.plan.Target.(Variable); ok {
		target, err := v.WithFlags(tune.Apply(nil, append(slices.Clone(l.kept), limit)...))
		if err != nil {
			return nil, fmt.Errorf("tune: %s: %w", limit, err)
		}
		plan.Target = target
	} else {
		label = "overload"
	}
	rep, err := Measure(ctx, plan)
	if rep == nil {
		return nil, err
	}
	verdict := l.sweepsVerdict
	for _, st := range rep.Steps {
		st.Name = label + " " + st.Name
		l.out.Steps = append(l.out.Steps, st)
		verdict = report.Worse(verdict, st.Verdict)
		l.t.Overload = st.OverloadGate
	}
	l.out.Verdict = verdict
	return l.t.Overload, err
}

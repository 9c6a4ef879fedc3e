package tune

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/serveflags"
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
// the lower limit LowerLimit names, and Protect keeps the one that
// passed.
func (l *tuneLoop) overload(ctx context.Context, p *report.Protect, o verdict.OverloadSettings) error {
	if p == nil || p.MaxNumQueuedReqs == 0 {
		return nil
	}
	_, variable := l.plan.Target.(load.Variable)
	first := p.MaxNumQueuedReqs
	for try := 1; ; try++ {
		g, err := l.overloadStep(ctx, p, o)
		if err != nil || g == nil {
			return err
		}
		lower, ok := LowerLimit(p.MaxNumQueuedReqs, g)
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
func (l *tuneLoop) overloadStep(ctx context.Context, p *report.Protect, o verdict.OverloadSettings) (*report.OverloadGate, error) {
	o.QueuedReqs = p.MaxNumQueuedReqs
	plan := l.plan
	plan.Rates, plan.Overload = []float64{RoundRate(OverloadFactor * p.KneeRate)}, &o
	limit := Change{Flag: "--max-num-queued-reqs", Value: fmt.Sprint(p.MaxNumQueuedReqs)}
	label := "overload " + limit.String()
	if v, ok := l.plan.Target.(load.Variable); ok {
		target, err := v.WithFlags(Apply(nil, append(slices.Clone(l.kept), limit)...))
		if err != nil {
			return nil, fmt.Errorf("tune: %s: %w", limit, err)
		}
		plan.Target = target
	} else {
		label = "overload"
	}
	rep, err := load.Measure(ctx, plan)
	if rep == nil {
		return nil, err
	}
	verdict := l.sweepsVerdict
	for _, st := range rep.Steps {
		st.Name = label + " " + st.Name
		l.out.Steps = append(l.out.Steps, st)
		verdict = report.Worse(verdict, st.Verdict)
		l.t.OverloadGate = st.OverloadGate
	}
	l.out.Verdict = verdict
	return l.t.OverloadGate, err
}

// deployLine writes the session's final line (Tune.Command): every flag
// the loop kept and Protect recommends, as vLLM serve takes them, and
// what a reader must know to trust it (Tune.CommandNote). The
// simulator's own flags are left out. An admission limit below
// --max-num-seqs caps the batch at the limit (it counts running plus
// waiting), so the line lowers --max-num-seqs to it: the same server,
// said plainly. A server llmslo did not start gets the flags to add or
// change, as its other flags cannot be seen.
func (l *tuneLoop) deployLine(model string, p *report.Protect) {
	t := l.t
	args := Apply(l.base, l.kept...)
	var notes []string
	if s, ok := l.plan.Target.(SimulatorFlags); ok {
		args, t.SimulatorOnly = s.VLLMArgs(args)
		if len(t.SimulatorOnly) > 0 {
			notes = append(notes, fmt.Sprintf("left out the simulator's own flags (%s): vLLM serve has none of them", strings.Join(t.SimulatorOnly, " ")))
		}
	}
	var rec []Change
	if g := t.OverloadGate; g != nil && !g.Pass && p != nil && p.MaxNumQueuedReqs > 0 {
		// Advice is what was measured to work: a limit the gate refused
		// stays out of the line, and the line says why.
		notes = append(notes, fmt.Sprintf("no admission limit in the line: with --max-num-queued-reqs %d the overload gate failed (%s)", p.MaxNumQueuedReqs, g.Message))
		p = nil
	}
	if p != nil && p.MaxNumQueuedReqs > 0 {
		limit := p.MaxNumQueuedReqs
		rec = append(rec, Change{Flag: "--max-num-queued-reqs", Value: strconv.Itoa(limit)})
		seqs := l.server().MaxNumSeqs
		if v, ok := serveflags.Int(args, "--max-num-seqs"); ok {
			seqs = v
		}
		if seqs > limit {
			rec = append(rec, Change{Flag: "--max-num-seqs", Value: strconv.Itoa(limit)})
			notes = append(notes, fmt.Sprintf("--max-num-seqs %d lowered to %d, the admission limit: --max-num-queued-reqs counts running plus waiting, "+
				"so no more than %d ever run at once; the same server, said plainly (the knee was measured with --max-num-seqs %d)", seqs, limit, limit, seqs))
		}
	}
	if _, variable := l.plan.Target.(load.Variable); variable {
		t.FinalArgs = Apply(args, rec...)
		t.Command = Command(model, t.FinalArgs)
	} else {
		t.FinalArgs = Apply(nil, rec...)
		t.Command = "no flag to add or change"
		if len(t.FinalArgs) > 0 {
			t.Command = "add or change on the server: " + strings.Join(t.FinalArgs, " ")
		}
		notes = append(notes, "the server's other flags could not be seen: llmslo did not start it")
	}
	t.CommandNote = strings.Join(notes, "; ")
}

// keepServersLimit holds Protect to the limit the server already has
// where that limit is what binds at the knee (a lower one would only shed
// below the knee), and says so where Protect's lies below it otherwise.
func keepServersLimit(p *report.Protect, args []string, binding string) {
	cur, ok := serveflags.Int(args, "--max-num-queued-reqs")
	if p == nil || !ok || p.MaxNumQueuedReqs == 0 || p.MaxNumQueuedReqs >= cur {
		return
	}
	note := fmt.Sprintf("below the server's own --max-num-queued-reqs %d: at the knee it held %.0f requests, running and waiting, "+
		"and a limit one above that keeps the queue the SLOs were met with", cur, p.HeldAtKnee)
	if binding == verdict.BindAdmission {
		note = fmt.Sprintf("kept the server's own --max-num-queued-reqs %d, not %d (one above the %.0f held at the knee): "+
			"that limit is what binds at the knee, and a lower one would shed below it", cur, p.MaxNumQueuedReqs, p.HeldAtKnee)
		p.MaxNumQueuedReqs, p.Flag = cur, fmt.Sprintf("--max-num-queued-reqs %d", cur)
	}
	if p.Note != "" {
		note = p.Note + "; " + note
	}
	p.Note = note
}

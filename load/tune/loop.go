package tune

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
)

// DefaultBudget is how many sweeps llmslo tune runs at most, the first
// (from the flags as given) included.
const DefaultBudget = 5

// Options says how Tune runs the loop.
type Options struct {
	// Search refines each sweep's knee (its Variants must be empty).
	Search Search
	// Budget caps the sweeps, the first included; 0: DefaultBudget.
	Budget int
	// Overload configures the last step, the overload gate at
	// OverloadFactor × the final knee with Protect's admission limit;
	// NoOverload leaves it out.
	Overload   verdict.OverloadSettings
	NoOverload bool
}

// OverloadFactor is how far past the final knee Tune's overload step runs.
const OverloadFactor = 1.5

// ServeArgs is a target that says the vLLM serve flags it starts with, so
// that a tuning session can print the final command line.
type ServeArgs interface {
	ServeArgs() []string
}

// SimulatorFlags is a target whose serve flags may hold some that vLLM
// serve does not take (the simulator's own): the final command line
// leaves them out.
type SimulatorFlags interface {
	VLLMArgs(args []string) (vllm, simOnly []string)
}

// Tune runs the lesson's tuning loop (docs/tuning.md): it finds the knee
// with the plan's rates, reads what binds there, applies the one flag
// change the binding's row names (Next decides), restarts the server
// with it and finds the knee again, keeping the change only when
// the knee moved beyond its bracket. It stops when compute (or the
// client) binds, when a change trades one SLO for another or moves
// nothing, or when the budget is spent. Every iteration is one of
// Report.Variants (one curve each in the HTML); Report.Tune says what was
// tried and why, Report.Capacity is the final knee and Report.Protect the
// admission limit and autoscaler trigger read there; the last step is the
// overload gate with that limit; Report.Tune.Command is one line with
// every flag kept and recommended, as vLLM serve takes them. A target that cannot be restarted (a URL)
// gets Fit, the knee, Protect and the gate on the server as it is.
func Tune(ctx context.Context, plan load.Plan, o Options) (*report.Report, error) {
	if len(o.Search.Variants) > 0 {
		return nil, errors.New("tune chooses the server's flags itself: give no variants")
	}
	budget := o.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	var base []string
	if a, ok := plan.Target.(ServeArgs); ok {
		base = a.ServeArgs()
	}
	l := &tuneLoop{plan: plan, search: o.Search, base: base, t: &report.Tune{}}
	first, err := l.sweep(ctx, plan.Target, plan.Rates, Change{}, base)
	if first == nil {
		return nil, err
	}
	l.final = first
	if err == nil {
		err = l.iterate(ctx, budget)
	}
	out := l.out
	out.Tune = l.t
	out.Capacity = l.final.Capacity
	out.Fit = l.fit
	out.Protect = protect(l.final, out.Target.Model)
	keepServersLimit(out.Protect, Apply(base, l.kept...), kneeOf(l.final).Binding)
	if err == nil && !o.NoOverload {
		err = l.overload(ctx, out.Protect, o.Overload)
	}
	l.deployLine(out.Target.Model, out.Protect)
	if err != nil {
		out.Partial, out.Reason = true, err.Error()
	}
	return out, err
}

// tuneLoop is the loop's state: what was kept, and the report so far.
type tuneLoop struct {
	plan   load.Plan
	search Search
	base   []string
	kept   []Change
	t      *report.Tune
	out    *report.Report
	fit    *report.Fit
	final  *report.Report // the last kept sweep's own report
	// sweepsVerdict is the sweeps' verdict, before the overload gate.
	sweepsVerdict report.Verdict
}

// iterate changes one flag at a time until a stop.
func (l *tuneLoop) iterate(ctx context.Context, budget int) error {
	variable, ok := l.plan.Target.(load.Variable)
	if !ok {
		l.t.CannotChange = "the target is a server llmslo did not start: it cannot change its flags, so this is Fit, the knee, Protect and the overload gate on the server as it is"
		l.t.Stop = l.t.CannotChange
		return nil
	}
	for len(l.t.Iterations) < budget {
		prev := kneeOf(l.final)
		if prev.Fail == 0 {
			l.t.Stop = stopWithoutKnee(l.final)
			return nil
		}
		c, stop, ok := Next(prev.Binding, l.server())
		if !ok {
			l.t.Stop = stop
			return nil
		}
		args := Apply(l.base, append(slices.Clone(l.kept), c)...)
		target, err := variable.WithFlags(Apply(nil, append(slices.Clone(l.kept), c)...))
		if err != nil {
			return fmt.Errorf("tune: %s: %w", c, err)
		}
		rep, err := l.sweep(ctx, target, Rates(prev), c, args)
		if rep == nil || err != nil {
			if err == nil {
				err = errors.New("tune: the sweep returned no report")
			}
			return err
		}
		next := kneeOf(rep)
		d := Assess(prev, next, c)
		if !d.Keep && next.Fail == 0 && variantVerdict(rep) == report.VerdictInvalid {
			d = Decision{Why: stopWithoutKnee(rep)} // nothing to judge the change on
		}
		it := &l.t.Iterations[len(l.t.Iterations)-1]
		it.Kept, it.Why = d.Keep, d.Why
		if !d.Keep {
			l.t.Stop = d.Why
			return nil
		}
		l.kept, l.final = append(l.kept, c), rep
	}
	l.t.Stop = fmt.Sprintf("the budget of %d sweeps is spent", budget)
	return nil
}

// sweep finds the knee of one server and adds it to the loop's report as
// one iteration.
func (l *tuneLoop) sweep(ctx context.Context, target load.Target, rates []float64, c Change, args []string) (*report.Report, error) {
	p := l.plan
	p.Target, p.Rates = target, rates
	rep, err := Sweep(ctx, p, l.search)
	if rep == nil {
		return nil, err
	}
	n := len(l.t.Iterations) + 1
	label := fmt.Sprintf("#%d as given", n)
	if c.Flag != "" {
		label = fmt.Sprintf("#%d %s", n, c)
	}
	if l.out == nil {
		head := *rep
		l.out, l.fit = &head, rep.Fit
		l.out.Steps, l.out.Capacity, l.out.Verdict = nil, nil, ""
	}
	for i := range rep.Steps {
		st := rep.Steps[i]
		st.Name = label + " " + st.Name
		l.out.Steps = append(l.out.Steps, st)
	}
	capacity := report.Capacity{}
	if rep.Capacity != nil {
		capacity = *rep.Capacity
	}
	capacity.Variant = label
	l.out.Variants = append(l.out.Variants, capacity)
	l.sweepsVerdict = report.Worse(l.sweepsVerdict, variantVerdict(rep))
	l.out.Verdict = l.sweepsVerdict
	k := kneeOf(rep)
	it := report.TuneIteration{Args: args, Change: c.String(), ChangeWhy: c.Why, PassRate: k.Pass, FailRate: k.Fail, Binding: k.Binding, Kept: c.Flag == ""}
	if c.Flag == "" {
		it.Change, it.Why = "", "the server's flags as given"
	}
	l.t.Iterations = append(l.t.Iterations, it)
	return rep, err
}

// server is what the loop knows of the current server's settings.
func (l *tuneLoop) server() Server {
	s := Server{Args: Apply(l.base, l.kept...)}
	for _, st := range l.final.Steps {
		s.MaxNumSeqs = max(s.MaxNumSeqs, st.Server.MaxNumSeqs)
		s.MaxRunning = max(s.MaxRunning, st.Server.MaxRunning)
	}
	return s
}

// kneeOf reads a sweep's knee for the decisions (Next, Judge, Rates): its
// bracket, what binds at the failing rate, and the SLOs that failed
// there. A sweep stopped by an invalid step has no failing rate.
func kneeOf(rep *report.Report) Knee {
	var k Knee
	c := rep.Capacity
	if c == nil {
		return k
	}
	k.Pass, k.Fail = c.PassRate, c.FailRate
	if c.Binding != nil {
		k.Binding = c.Binding.Kind
	}
	for _, st := range rep.Steps {
		if st.RateTarget != c.FailRate || c.FailRate == 0 {
			continue
		}
		for _, r := range st.SLO {
			if !r.Pass && !slices.Contains(k.Failed, r.Metric) {
				k.Failed = append(k.Failed, r.Metric)
			}
		}
	}
	return k
}

// stopWithoutKnee says why a sweep left nothing to
func stopWithoutKnee(rep *report.Report) string {
	for _, st := range rep.Steps {
		if st.Verdict == report.VerdictInvalid {
			kinds := make([]string, 0, len(st.Hazards))
			for _, h := range st.Hazards {
				kinds = append(kinds, h.Kind)
			}
			return fmt.Sprintf("the step at %g req/s could not be judged (%s): no knee to move", st.RateTarget, strings.Join(kinds, ", "))
		}
	}
	return "every rate passed: no knee to move (give higher --rates)"
}

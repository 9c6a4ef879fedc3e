package tune

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
)

// sweepVariants runs the tuning loop over server settings: one sweep per
// variant (a string of vLLM serve flags added to the target's own), each
// on a server started with those flags, and reports them side by side:
// each variant's capacity, binding constraint and curve in
// Report.Variants, and every step in Steps, named after its variant. The
// run fails when a variant found no passing rate, and is invalid when one
// could not be judged. The simulator and the vllm container take variants
// (the flags go to the container's command line, after the starter's
// own); a URL target cannot be restarted, so it cannot.
func sweepVariants(ctx context.Context, plan load.Plan, search Search) (*report.Report, error) {
	base, ok := plan.Target.(load.Variable)
	if !ok {
		return nil, errors.New("server variants need a server llmslo starts (sim or vllm), not one already running")
	}
	// Every variant's flags are checked before the first sweep: a typo in
	// the last must not cost the sweeps of the others.
	targets := make([]load.Target, len(search.Variants))
	for i, v := range search.Variants {
		target, err := base.WithFlags(strings.Fields(v))
		if err != nil {
			return nil, fmt.Errorf("server variant %q: %w", v, err)
		}
		targets[i] = target
	}
	var out *report.Report
	for i, v := range search.Variants {
		p, one := plan, search
		p.Target, one.Variants = targets[i], nil
		rep, err := Sweep(ctx, p, one)
		if rep == nil {
			return out, fmt.Errorf("server variant %q: %w", v, err)
		}
		if out == nil {
			head := *rep // the run's header: target, fixture, seed, SLOs
			out = &head
			out.Steps, out.Capacity, out.Verdict = nil, nil, ""
		}
		for i := range rep.Steps {
			rep.Steps[i].Name = v + " " + rep.Steps[i].Name
		}
		out.Steps = append(out.Steps, rep.Steps...)
		capacity := report.Capacity{Variant: v}
		if rep.Capacity != nil {
			capacity = *rep.Capacity
			capacity.Variant = v
		}
		out.Variants = append(out.Variants, capacity)
		out.Verdict = report.Worse(out.Verdict, variantVerdict(rep))
		if err != nil {
			out.Partial, out.Reason = true, err.Error()
			return out, err
		}
	}
	return out, nil
}

// variantVerdict: a sweep that found a passing rate did its job (steps
// above the knee fail by design); one stopped by an invalid step could not.
func variantVerdict(rep *report.Report) report.Verdict {
	for _, st := range rep.Steps {
		if st.Verdict == report.VerdictInvalid {
			return report.VerdictInvalid
		}
	}
	if rep.Capacity == nil || rep.Capacity.PassRate == 0 {
		return report.VerdictFail
	}
	return report.VerdictPass
}

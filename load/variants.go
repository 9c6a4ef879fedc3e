package load

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/vllmsim"
)

// SweepVariants runs the tuning loop over server settings: one sweep per
// variant (a string of vLLM serve flags added to cfg.SimArgs), each on a
// server started with those flags, and reports them side by side: each
// variant's capacity, binding constraint and curve in Report.Variants, and
// every step in Steps, named after its variant. The run fails when a
// variant found no passing rate, and is invalid when one could not be
// judged. The simulator and the vllm container take variants (the flags go
// to the container's command line, after the starter's own); a URL target
// cannot be restarted, so it cannot.
func SweepVariants(ctx context.Context, cfg Config, variants []string, refine int) (*report.Report, error) {
	if len(variants) == 0 {
		return nil, errors.New("a variant sweep needs at least one variant")
	}
	target := strings.TrimSpace(cfg.Target.Target)
	if target != "" && target != TargetSim && target != TargetVLLM {
		return nil, fmt.Errorf("server variants need a server llmslo starts (sim or vllm), not %q", target)
	}
	var out *report.Report
	for _, v := range variants {
		c := cfg
		if target == TargetVLLM {
			c.Target.VLLMArgs = append(slices.Clone(cfg.Target.VLLMArgs), strings.Fields(v)...)
		} else {
			sim, err := vllmsim.ParseServeArgs(append(slices.Clone(cfg.SimArgs), strings.Fields(v)...))
			if err != nil {
				return out, fmt.Errorf("server variant %q: %w", v, err)
			}
			c.Target.Sim = sim
		}
		c.ReportDir = "" // written once, whole, below
		rep, err := Sweep(ctx, c, refine)
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
	if cfg.ReportDir != "" {
		if _, err := WriteReport(out, cfg.ReportDir); err != nil {
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

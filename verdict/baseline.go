package verdict

import (
	"fmt"

	"github.com/llmslo/llmslo/report"
)

// CompareBaseline checks every latency SLO of st against the same step of
// base. It is an error when base has no such step or did not measure the
// percentile: a gate must not pass for want of something to compare with.
func CompareBaseline(base *report.Report, st *report.StepReport, tolerance float64) ([]report.BaselineCheck, error) {
	var bs *report.StepReport
	for i := range base.Steps {
		if base.Steps[i].Name == st.Name {
			bs = &base.Steps[i]
		}
	}
	if bs == nil {
		return nil, fmt.Errorf("the baseline has no step %s", st.Name)
	}
	var out []report.BaselineCheck
	for _, r := range st.SLO {
		if r.Metric == string(report.MetricErrorRate) || r.Samples == 0 {
			continue
		}
		b, ok := findResult(bs.SLO, r.Metric, r.Percentile)
		if !ok || b.Samples == 0 {
			return nil, fmt.Errorf("the baseline's step %s has no %s.p%g", st.Name, r.Metric, r.Percentile)
		}
		c := report.BaselineCheck{Metric: r.Metric, Percentile: r.Percentile, BaselineMs: b.ObservedMs,
			ObservedMs: r.ObservedMs, CI95Ms: r.CI95Ms, Tolerance: tolerance}
		bound := b.ObservedMs * (1 + tolerance)
		if r.CI95Ms != nil {
			c.Regressed = r.CI95Ms[0] > bound
		} else {
			c.Regressed = r.ObservedMs > bound
		}
		out = append(out, c)
	}
	return out, nil
}

func findResult(rs []report.SLOResult, metric string, p float64) (report.SLOResult, bool) {
	for _, r := range rs {
		if r.Metric == metric && r.Percentile == p {
			return r, true
		}
	}
	return report.SLOResult{}, false
}

// Regressions lists the checks that regressed, readably.
func Regressions(cs []report.BaselineCheck) []string {
	var out []string
	for _, c := range cs {
		if c.Regressed {
			out = append(out, fmt.Sprintf("%s.p%g %.1f ms against a baseline of %.1f ms (more than %.0f%% slower)",
				c.Metric, c.Percentile, c.ObservedMs, c.BaselineMs, 100*c.Tolerance))
		}
	}
	return out
}

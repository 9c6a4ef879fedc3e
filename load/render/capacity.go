package render

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/llmslo/llmslo/load/report"
)

// CapacityText says in words what a sweep found: the knee's bracket, and
// what binds there. steps tells a sweep stopped by an invalid step from
// one where every rate passed.
func CapacityText(c *report.Capacity, steps []report.StepReport) string {
	return capacityWords(c, steps) + BindingText(c)
}

// BindingText is what binds at the knee's failing rate, on lines of its
// own ("" when nothing was named): what a sweep adds below a verdict line
// that already says where the knee is.
func BindingText(c *report.Capacity) string {
	b := c.Binding
	if b == nil {
		return ""
	}
	return fmt.Sprintf("\nbinding at %g req/s: %s: %s\n  change: %s", c.FailRate, b.Kind, b.Evidence, b.Flag)
}

// capacityWords is the knee's bracket in words, without what binds.
func capacityWords(c *report.Capacity, steps []report.StepReport) string {
	stopped := false
	for i := range steps {
		stopped = stopped || steps[i].Verdict == report.VerdictInvalid
	}
	switch {
	case stopped && c.FailRate == 0:
		if c.PassRate == 0 {
			return "unknown: an invalid step stopped the sweep before any rate passed"
		}
		return fmt.Sprintf("unknown: an invalid step stopped the sweep (last pass %g req/s)", c.PassRate)
	case c.PassRate == 0 && c.FailRate > 0:
		return fmt.Sprintf("fails at every rate tried, the lowest was %g req/s", c.FailRate)
	case c.FailRate == 0:
		return fmt.Sprintf("at least %g req/s (every rate passed)", c.PassRate)
	}
	s := fmt.Sprintf("%g req/s meets every SLO; %g req/s does not", c.PassRate, c.FailRate)
	if c.Precision > 0 {
		s += fmt.Sprintf(" (the knee known to %.0f%%)", 100*c.Precision)
	}
	return s
}

// WriteVariants writes a variant sweep side by side: each variant's knee,
// what binds there, and TTFT p95 and ITL p99 at its last passing rate.
func WriteVariants(w io.Writer, r *report.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tpasses at\tfails at\tbinding\tttft p95 at knee\titl p99 at knee")
	for _, v := range r.Variants {
		ttft, itl := "-", "-"
		for _, p := range v.Curve {
			if p.Rate == v.PassRate && v.PassRate > 0 {
				ttft, itl = fmt.Sprintf("%.1fms", p.TTFTP95Ms), fmt.Sprintf("%.1fms", p.ITLP99Ms)
			}
		}
		binding := "-"
		if v.Binding != nil {
			binding = v.Binding.Kind
		}
		fail := "-"
		if v.FailRate > 0 {
			fail = fmt.Sprintf("%g", v.FailRate)
		}
		fmt.Fprintf(tw, "%s\t%g\t%s\t%s\t%s\t%s\n", v.Variant, v.PassRate, fail, binding, ttft, itl)
	}
	tw.Flush()
}

package render

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/llmslo/llmslo/load/report"
)

// WriteSummary writes one line per step: what a person reads first.
func WriteSummary(w io.Writer, r *report.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	rates := "asked/s\tsent/s"
	if hasSessions(r) {
		rates = "asked sessions/s\tstarted sessions/s" // and the counts that follow are turns
	}
	fmt.Fprintln(tw, "step\t"+rates+"\tsent\tok\tfailed\tttft p50\tttft p95\tttft p99\titl p50\titl p99\ttpot p50\tgoodput\tverdict\t")
	for i := range r.Steps {
		s := &r.Steps[i]
		asked := "-" // a trace replayed at its own pace asks for no rate
		if s.RateTarget > 0 {
			asked = fmt.Sprintf("%.2f", s.RateTarget)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f%%\t%s\t\n",
			s.Name, asked, s.RateAchieved, s.Requests.Sent, s.Requests.Completed, s.Requests.Failed+s.Requests.Unfinished,
			msCell(s.TTFT.P50, s.TTFT.Count), msCell(s.TTFT.P95, s.TTFT.Count), msCell(s.TTFT.P99, s.TTFT.Count),
			msCell(s.ITL.P50, s.ITL.Count), msCell(s.ITL.P99, s.ITL.Count), msCell(s.TPOT.P50, s.TPOT.Count),
			100*s.Goodput, verdictCell(s))
		if b := r.Versus.Step(s.Name); b != nil {
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f%%\t%s\t\n",
				"  base", asked, b.RateAchieved, b.Requests.Sent, b.Requests.Completed, b.Requests.Failed+b.Requests.Unfinished,
				msCell(b.TTFT.P50, b.TTFT.Count), msCell(b.TTFT.P95, b.TTFT.Count), msCell(b.TTFT.P99, b.TTFT.Count),
				msCell(b.ITL.P50, b.ITL.Count), msCell(b.ITL.P99, b.ITL.Count), msCell(b.TPOT.P50, b.TPOT.Count),
				100*b.Goodput, verdictCell(b))
		}
	}
	tw.Flush()
	if v := r.Versus; v != nil {
		fmt.Fprintf(w, "side by side (%s) with the base %s: %s; a ratio this ÷ base beyond ×%.2f fails\n",
			v.Mode, targetWords(v.Target), VersusHow(v), 1+v.Tolerance)
		for i := range r.Steps {
			if cs := r.Steps[i].Versus; len(cs) > 0 {
				fmt.Fprintf(w, "%s: against the base: %s\n", r.Steps[i].Name, VersusLine(cs))
			}
		}
	}
	for i := range r.Steps {
		if line := ShedInWords(&r.Steps[i]); line != "" {
			fmt.Fprintf(w, "%s: %s\n", r.Steps[i].Name, line)
		}
	}
	writeSessionSummary(w, r)
	for i := range r.Steps {
		s := &r.Steps[i]
		if u := s.UntilDecided; u != nil {
			fmt.Fprintf(w, "%s: %s\n", s.Name, u.Why)
		}
		for _, res := range s.SLO {
			if !res.Pass && !gatedErrorRate(s, res) {
				fmt.Fprintf(w, "%s: FAIL: %s\n", s.Name, FailedSLO(res))
			}
		}
		if g := s.OverloadGate; g != nil {
			fmt.Fprintf(w, "%s: %s\n", s.Name, g.Message)
		}
		for _, c := range s.Baseline {
			if c.Regressed {
				fmt.Fprintf(w, "%s: REGRESSED: %s\n", s.Name, regression(c))
			}
		}
		if s.OverCapacity != nil && s.OverloadGate == nil { // the gate judges an overload step's queue
			fmt.Fprintf(w, "%s: FAIL: %s\n", s.Name, s.OverCapacity.Message)
		}
		for _, h := range s.Hazards {
			fmt.Fprintf(w, "%s: INVALID (%s): %s\n    fix: %s\n", s.Name, h.Kind, h.Message, h.Fix)
		}
		for _, h := range s.Notes {
			fmt.Fprintf(w, "%s: %s (%s): %s\n", s.Name, NoteWord(s), h.Kind, h.Message)
		}
	}
	writeAbandoned(w, r)
	for _, n := range r.Target.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, n := range notJudgedOnce(r) {
		fmt.Fprintf(w, "not judged (%s): %s\n", n.Check, n.Reason)
	}
	if off := hazardsOff(r); len(off) > 0 {
		fmt.Fprintf(w, "note: hazards not judged, turned off by the run: %s\n", strings.Join(off, ", "))
	}
	if info := r.Fixture; info != nil && info.Clipped > 0 {
		fmt.Fprintf(w, "note: %d of %d fixture requests were clipped to fit the server's context length\n", info.Clipped, info.Requests)
	}
	writeFit(w, r.Fit)
	writeVerdict(w, r)
}

// writeVerdict writes the run's verdict line; a sweep's verdict is its
// worst step's, so a sweep says what it found instead.
func writeVerdict(w io.Writer, r *report.Report) {
	verdict := string(r.Verdict)
	if found := r.OutcomeText(); found != "" {
		verdict = found
	}
	fmt.Fprintf(w, "verdict: %s", verdict)
	if r.Partial {
		fmt.Fprintf(w, " (partial: %s)", r.Reason)
	}
	fmt.Fprintln(w)
}

// WriteStep writes a step's SLO table: each SLO with the observed value,
// its 95% interval, the limit and the verdict, then the rate and hazards.
func WriteStep(w io.Writer, s *report.StepReport) {
	fmt.Fprintf(w, "%s: %s, %s; %d sent, %d ok, %d failed, %d unfinished, %d dropped\n",
		s.Name, strings.ToUpper(string(s.Verdict)), AchievedInWords(s),
		s.Requests.Sent, s.Requests.Completed, s.Requests.Failed, s.Requests.Unfinished, s.Requests.Dropped)
	if s.Requests.Canceled > 0 {
		fmt.Fprintf(w, "  %d requests were cancelled in flight when the run was cut short\n", s.Requests.Canceled)
	}
	if s.Requests.Abandoned > 0 {
		fmt.Fprintf(w, "  %d requests were abandoned mid-stream as planned (not failures; out of the percentiles)\n", s.Requests.Abandoned)
	}
	if line := ShedInWords(s); line != "" {
		fmt.Fprintf(w, "  %s\n", line)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  slo\tobserved\t95% interval\tlimit\tsamples\tresult")
	for _, r := range s.SLO {
		name, obs, ci, limit := r.Metric, "", "", ""
		if r.Metric == string(report.MetricErrorRate) {
			obs, limit, ci = fmt.Sprintf("%.2f%%", 100*r.Observed), fmt.Sprintf("%.2f%%", 100*r.MaxRate), "-"
			if r.CI95 != nil {
				ci = fmt.Sprintf("[%.2f%%, %.2f%%]", 100*r.CI95[0], 100*r.CI95[1])
			}
		} else {
			name = fmt.Sprintf("%s.p%g", r.Metric, r.Percentile)
			obs, limit, ci = fmt.Sprintf("%.1f ms", r.ObservedMs), fmt.Sprintf("%g ms", r.LimitMs), "n/a"
			if r.CI95Ms != nil {
				ci = fmt.Sprintf("[%.1f, %.1f] ms", r.CI95Ms[0], r.CI95Ms[1])
			}
			if r.Samples == 0 {
				obs = "no observations"
			}
		}
		res := "pass"
		if !r.Pass {
			res = "FAIL"
		}
		if note := resultNote(r); note != "" {
			res += " (" + note + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%s\n", name, obs, ci, limit, r.Samples, res)
	}
	tw.Flush()
	writeSessions(w, s)
	for _, c := range s.Baseline {
		res := "ok"
		if c.Regressed {
			res = "REGRESSED"
		}
		ratio := fmt.Sprintf("×%.2f", c.Ratio)
		if c.RatioCI95 != nil {
			ratio += fmt.Sprintf(" [%.2f, %.2f]", c.RatioCI95[0], c.RatioCI95[1])
		}
		paired := "paired"
		if !c.Paired {
			paired = "unpaired: another seed"
		}
		fmt.Fprintf(w, "  baseline %s.p%g: %.1f ms against %.1f ms, %s (%s), allowed ×%.2f: %s\n",
			c.Metric, c.Percentile, c.ObservedMs, c.BaselineMs, ratio, paired, 1+c.Tolerance, res)
	}
	if len(s.Versus) > 0 {
		fmt.Fprintf(w, "  against the base server (side by side): %s\n", VersusLine(s.Versus))
	}
	if len(s.Errors) > 0 {
		fmt.Fprintf(w, "  errors: %s\n", formatErrors(s.Errors))
		printErrorMessages(w, s.ErrorMessages)
	}
	if s.OverCapacity != nil {
		fmt.Fprintf(w, "  %s\n", s.OverCapacity.Message)
	}
	for _, h := range s.Hazards {
		fmt.Fprintf(w, "  hazard %s: %s\n    fix: %s\n", h.Kind, h.Message, h.Fix)
	}
	for _, h := range s.Notes {
		fmt.Fprintf(w, "  %s (%s): %s\n", NoteWord(s), h.Kind, h.Message)
	}
	if len(s.HazardsOff) > 0 {
		fmt.Fprintf(w, "  hazards not judged (turned off): %s\n", strings.Join(s.HazardsOff, ", "))
	}
	for _, n := range s.NotJudged {
		fmt.Fprintf(w, "  not judged (%s): %s\n", n.Check, n.Reason)
	}
}

// notJudgedOnce lists, once per check and in order, what some step could
// not judge (the first step's reason stands for the rest: the steps of a
// run share their server).
func notJudgedOnce(r *report.Report) []report.NotJudged {
	var out []report.NotJudged
	for i := range r.Steps {
		for _, n := range r.Steps[i].NotJudged {
			if !slices.ContainsFunc(out, func(m report.NotJudged) bool { return m.Check == n.Check }) {
				out = append(out, n)
			}
		}
	}
	return out
}

// hazardsOff lists, once each and in order, the hazard kinds some step did
// not judge: a verdict that rests on fewer checks must say so.
func hazardsOff(r *report.Report) []string {
	var off []string
	for i := range r.Steps {
		for _, k := range r.Steps[i].HazardsOff {
			if !slices.Contains(off, k) {
				off = append(off, k)
			}
		}
	}
	return off
}

// writeAbandoned notes, under the summary table, the requests each step
// abandoned on purpose: the table's sent is more than ok plus failed by
// that many.
func writeAbandoned(w io.Writer, r *report.Report) {
	for i := range r.Steps {
		if n := r.Steps[i].Requests.Abandoned; n > 0 {
			fmt.Fprintf(w, "note: %s: %d requests abandoned mid-stream as planned (not failures; out of the percentiles)\n", r.Steps[i].Name, n)
		}
	}
}

// printErrorMessages lists the server's words under the error counts, by
// class. Each is quoted: a message is the server's text, and a newline or
// a terminal escape in it must not reach the terminal as such.
func printErrorMessages(w io.Writer, m map[string][]string) {
	classes := make([]string, 0, len(m))
	for c := range m {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		for _, msg := range m[c] {
			fmt.Fprintf(w, "    %s: %q\n", c, msg)
		}
	}
}

func formatErrors(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

func msCell(v float64, n int64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fms", v)
}

func verdictCell(s *report.StepReport) string {
	v := strings.ToUpper(string(s.Verdict))
	if s.Partial {
		v += "*"
	}
	return v
}

// resultNote says why an SLO's verdict rests on its point estimate alone,
// or "" when its 95% interval decided it: no observations, too few samples
// for any interval, samples that move together second by second and so
// count as fewer independent ones than an interval needs, or an interval
// across the limit.
func resultNote(r report.SLOResult) string {
	if r.Metric == string(report.MetricErrorRate) {
		switch {
		case r.CI95 == nil || r.Samples == 0:
			return "no requests judged"
		case r.CI95[1] <= r.MaxRate || r.CI95[0] > r.MaxRate:
			return ""
		}
		return "inconclusive: the 95% interval straddles the limit; a longer step narrows it"
	}
	if r.Samples == 0 {
		return "no observations"
	}
	if ci := r.CI95Ms; ci != nil {
		if ci[1] <= r.LimitMs || ci[0] > r.LimitMs {
			return ""
		}
		return "inconclusive: the 95% interval straddles the limit; a longer step narrows it"
	}
	if r.DesignEffect > 1 && r.Samples >= r.NeededSamples {
		return fmt.Sprintf("no interval: the %d samples came in bursts that move together (design effect %.4g), "+
			"worth about %d independent ones; a 95%% interval at p%g needs %d",
			r.Samples, r.DesignEffect, int64(float64(r.Samples)/r.DesignEffect), r.Percentile, r.NeededSamples)
	}
	if r.Samples >= r.NeededSamples {
		return fmt.Sprintf("no interval was recorded for its %d samples", r.Samples)
	}
	return fmt.Sprintf("no interval: %d samples; a 95%% interval at p%g needs %d or more", r.Samples, r.Percentile, r.NeededSamples)
}

// FailedSLO describes a failed SLO result in one line: the observed value,
// its 95% interval and the limit.
func FailedSLO(r report.SLOResult) string {
	if r.Metric == string(report.MetricErrorRate) {
		ci := ""
		if r.CI95 != nil {
			ci = fmt.Sprintf(" (95%% interval %.2f%%–%.2f%%)", 100*r.CI95[0], 100*r.CI95[1])
		}
		return fmt.Sprintf("error_rate %.2f%%%s > %.2f%% over %d requests", 100*r.Observed, ci, 100*r.MaxRate, r.Samples)
	}
	if r.Samples == 0 {
		// Nothing was measured: there is no value to compare with the limit.
		return fmt.Sprintf("%s.p%g: no observations (limit %g ms)", r.Metric, r.Percentile, r.LimitMs)
	}
	ci := ""
	if r.CI95Ms != nil {
		ci = fmt.Sprintf(" (95%% interval %.1f–%.1f ms)", r.CI95Ms[0], r.CI95Ms[1])
	}
	return fmt.Sprintf("%s.p%g %.1f ms%s > %g ms", r.Metric, r.Percentile, r.ObservedMs, ci, r.LimitMs)
}

// regression describes a regressed baseline check in one line.
func regression(c report.BaselineCheck) string {
	return fmt.Sprintf("%s.p%g %.1f ms against a baseline of %.1f ms (allowed +%.0f%%)",
		c.Metric, c.Percentile, c.ObservedMs, c.BaselineMs, 100*c.Tolerance)
}

// VersusLine says in one line how a step compared with the base side of a
// side-by-side run: each gated percentile's ratio and its interval.
func VersusLine(cs []report.BaselineCheck) string {
	var parts []string
	for _, c := range cs {
		p := fmt.Sprintf("%s.p%g ×%.2f", c.Metric, c.Percentile, c.Ratio)
		if c.RatioCI95 != nil {
			p += fmt.Sprintf(" [%.2f, %.2f]", c.RatioCI95[0], c.RatioCI95[1])
		}
		if c.Regressed {
			p += " REGRESSED"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// targetWords names a target for a line: its kind, and its URL when it has
// one that says more.
// VersusHow says how a side-by-side run shared its load between the two
// servers.
func VersusHow(v *report.Versus) string {
	if v.Mode == report.VersusAlternate {
		return fmt.Sprintf("the same requests in %s, in ABBA order, each after %gs left out of both", blockWords(v.BlocksS), v.TransientS)
	}
	return "the same requests at the same moments"
}

func targetWords(t report.TargetInfo) string {
	if t.URL == "" || t.Kind == "sim" {
		return t.Kind
	}
	return t.Kind + " " + t.URL
}

// blockWords names an alternating step's blocks, in order: "4 blocks a
// side of 10s", or "4 blocks a side of 8, 8, 7 and 7s" when whole seconds
// left them unequal. The run's header and each step's rate note say it
// alike.
func blockWords(secs []float64) string {
	if len(secs) == 0 {
		return "blocks"
	}
	if slices.Min(secs) == slices.Max(secs) {
		return fmt.Sprintf("%d blocks a side of %gs", len(secs), secs[0])
	}
	words := make([]string, len(secs))
	for i, s := range secs {
		words[i] = fmt.Sprintf("%g", s)
	}
	return fmt.Sprintf("%d blocks a side of %s and %ss", len(secs), strings.Join(words[:len(words)-1], ", "), words[len(words)-1])
}

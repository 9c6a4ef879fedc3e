package render

import (
	"fmt"
	"os"
	"strings"

	"github.com/llmslo/llmslo/load/report"
)

// EnvStepSummary is the file GitHub Actions renders as a job's summary.
const EnvStepSummary = "GITHUB_STEP_SUMMARY"

// AppendStepSummary appends a markdown table of the report to path; an
// empty path does nothing.
func AppendStepSummary(path, title string, r *report.Report) error {
	if path == "" || r == nil {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(Markdown(title, r))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Markdown renders a report as a markdown section: one row per step, then
// each hazard with its fix.
func Markdown(title string, r *report.Report) string {
	var b strings.Builder
	verdict := strings.ToUpper(string(r.Verdict))
	if found := r.OutcomeText(); found != "" {
		verdict = found
	}
	fmt.Fprintf(&b, "### %s: %s\n\n", title, verdict)
	fmt.Fprintf(&b, "Target %s (%s), model %s.\n\n", r.Target.Kind, r.Target.URL, r.Target.Model)
	for _, n := range r.Target.Notes {
		fmt.Fprintf(&b, "_Target: %s._\n\n", n)
	}
	unit := "req/s"
	if hasSessions(r) {
		unit = "sessions/s"
	}
	b.WriteString("| step | " + unit + " | sent | failed | TTFT p95 (ms) | ITL p99 (ms) | goodput | verdict |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---|\n")
	for i := range r.Steps {
		s := &r.Steps[i]
		fmt.Fprintf(&b, "| %s | %.2f | %d | %d | %.1f | %.1f | %.1f%% | %s |\n", s.Name, s.RateAchieved,
			s.Requests.Sent, s.Requests.Failed+s.Requests.Unfinished, s.TTFT.P95, s.ITL.P99, 100*s.Goodput, s.Verdict)
		if bs := r.Versus.Step(s.Name); bs != nil {
			fmt.Fprintf(&b, "| %s, base | %.2f | %d | %d | %.1f | %.1f | %.1f%% | %s |\n", s.Name, bs.RateAchieved,
				bs.Requests.Sent, bs.Requests.Failed+bs.Requests.Unfinished, bs.TTFT.P95, bs.ITL.P99, 100*bs.Goodput, bs.Verdict)
		}
	}
	if v := r.Versus; v != nil {
		fmt.Fprintf(&b, "\nSide by side (%s) with the base %s: %s; a ratio this ÷ base beyond ×%.2f fails.\n",
			v.Mode, targetWords(v.Target), VersusHow(v), 1+v.Tolerance)
		for i := range r.Steps {
			if cs := r.Steps[i].Versus; len(cs) > 0 {
				fmt.Fprintf(&b, "\n- **%s** against the base: %s.", r.Steps[i].Name, VersusLine(cs))
			}
		}
	}
	for i := range r.Steps {
		s := &r.Steps[i]
		if u := s.UntilDecided; u != nil {
			fmt.Fprintf(&b, "\n- **%s** %s.", s.Name, u.Why)
		}
		if s.OverCapacity != nil && s.OverloadGate == nil {
			fmt.Fprintf(&b, "\n- **%s** failed: %s.", s.Name, s.OverCapacity.Message)
		}
		if g := s.OverloadGate; g != nil {
			fmt.Fprintf(&b, "\n- **%s** %s.", s.Name, g.Message)
		}
		for _, h := range s.Hazards {
			fmt.Fprintf(&b, "\n- **%s** `%s`: %s. Fix: %s.", s.Name, h.Kind, h.Message, h.Fix)
		}
		for _, h := range s.Notes {
			fmt.Fprintf(&b, "\n- **%s** %s `%s`: %s.", s.Name, NoteWord(s), h.Kind, h.Message)
		}
	}
	for _, n := range notJudgedOnce(r) {
		fmt.Fprintf(&b, "\n- not judged `%s`: %s.", n.Check, n.Reason)
	}
	markdownTune(&b, r)
	if off := hazardsOff(r); len(off) > 0 {
		fmt.Fprintf(&b, "\n\n_Hazards not judged, turned off by the run: %s._", strings.Join(off, ", "))
	}
	if r.Partial {
		fmt.Fprintf(&b, "\n\n_Partial run: %s_", r.Reason)
	}
	b.WriteString("\n\n")
	return b.String()
}

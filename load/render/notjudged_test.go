package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmslo/llmslo/load/report"
)

// A step against a server with no metrics and no observations: every face
// says "no observations" where there was nothing to compare (never 0.0 ms),
// and lists the checks it could not make, with the reason.
func TestNoObservationsAndNotJudgedInEveryFace(t *testing.T) {
	r := &report.Report{Verdict: report.VerdictFail, Target: report.TargetInfo{Notes: []string{"prompts were sent as text"}}, Steps: []report.StepReport{{
		Name: "rate=2", Verdict: report.VerdictFail,
		Requests:  report.RequestCounts{Scheduled: 40, Sent: 40, Failed: 40},
		SLO:       []report.SLOResult{{Metric: "ttft", Percentile: 95, LimitMs: 500, NoObservations: true, NeededSamples: 59}},
		NotJudged: []report.NotJudged{{Check: "over_capacity", Reason: "the server exposes no metrics: no waiting queue"}},
	}}}
	var sum, step bytes.Buffer
	WriteSummary(&sum, r)
	WriteStep(&step, &r.Steps[0])
	faces := map[string]string{"summary": sum.String(), "step": step.String(), "markdown": Markdown("gate", r), "html": renderHTML(t, r)}
	for name, text := range faces {
		if strings.Contains(text, "0.0 ms") {
			t.Errorf("%s compares a value nobody observed:\n%s", name, text)
		}
		if name != "step" && !strings.Contains(text, "prompts were sent as text") {
			t.Errorf("%s does not carry the target's notes:\n%s", name, text)
		}
		if !strings.Contains(text, "the server exposes no metrics: no waiting queue") || !strings.Contains(text, "over_capacity") {
			t.Errorf("%s does not say what was not judged:\n%s", name, text)
		}
	}
	for _, name := range []string{"summary", "step", "html"} {
		if !strings.Contains(faces[name], "no observations") {
			t.Errorf("%s does not say the SLO had no observations:\n%s", name, faces[name])
		}
	}
}

package slotest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/render"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
)

// WithOverload runs every rate as an overload step, past the server's
// knee, judged by the overload gate instead of the error guard that counts
// shed requests against the server: shed requests must get their 503
// within shedP99 at p99 (0: verdict.DefaultShedP99, 250 ms), admitted
// requests must meet the SLOs, none may wait past its timeout, and the
// shed share is reported with its interval. A server that queues instead
// of shedding fails with the --max-num-queued-reqs value to set.
func WithOverload(shedP99 time.Duration) Option {
	return func(c *config) { c.Overload = &verdict.OverloadSettings{ShedP99: shedP99} }
}

// logFit logs what Fit read before the first step, and its finding: a
// finding fails nothing.
func logFit(t testing.TB, f *report.Fit) {
	t.Helper()
	if f == nil {
		return
	}
	t.Log("slotest: " + f.Message)
	if f.Finding != nil {
		t.Logf("slotest: finding (%s): %s", f.Finding.Kind, f.Finding.Message)
	}
}

// gateTable is an overload step's table as the gate judged it: without
// the error guard the gate replaces (shed requests are its 503s, not the
// server's failures), followed by the gate's own verdict.
func gateTable(st *report.StepReport, g *report.OverloadGate) string {
	judged := *st
	judged.SLO = slices.DeleteFunc(slices.Clone(st.SLO), func(r report.SLOResult) bool {
		return r.Metric == string(report.MetricErrorRate)
	})
	judged.Shed, judged.Requests.Shed = nil, 0 // the gate's line says what was shed, and that it is no failure
	var b bytes.Buffer
	render.WriteStep(&b, &judged)
	b.WriteString("  " + gateLine(st, g) + "\n") // a failure's message, with its fix, is the test's error
	return b.String()
}

// gateLine is the gate's verdict in one line: what was shed and how fast,
// what the admitted requests met, and the timeouts.
func gateLine(st *report.StepReport, g *report.OverloadGate) string {
	word := "passed"
	if !g.Pass {
		word = "FAILED"
	}
	shed := "nothing shed"
	if sh := g.Shed; sh != nil && sh.Count > 0 {
		shed = fmt.Sprintf("%d of %d shed, shed p99 %.0f ms %s %.0f ms", sh.Count, sh.Of, g.ShedP99Ms, cmp(g.ShedP99Ms <= g.ShedLimitMs), g.ShedLimitMs)
	}
	var admitted []string
	for _, r := range st.SLO {
		if r.Metric != string(report.MetricErrorRate) {
			admitted = append(admitted, fmt.Sprintf("%s.p%g %.1f ms %s %g ms", r.Metric, r.Percentile, r.ObservedMs, cmp(r.Pass), r.LimitMs))
		}
	}
	admitted = append(admitted, fmt.Sprintf("error rate %.2f%% %s %.2f%%",
		100*g.AdmittedErrorRate, cmp(g.AdmittedErrorRate <= g.ErrorRateLimit), 100*g.ErrorRateLimit))
	timeouts := "no timeouts"
	if g.TimedOut > 0 {
		timeouts = fmt.Sprintf("%d timed out", g.TimedOut)
	}
	return fmt.Sprintf("overload gate %s: %s; admitted: %s; %s", word, shed, strings.Join(admitted, ", "), timeouts)
}

func cmp(within bool) string {
	if within {
		return "≤"
	}
	return ">"
}

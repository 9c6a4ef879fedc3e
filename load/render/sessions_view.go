package render

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// A session replay's own figures, for the terminal summary and the HTML
// page: what became of the sessions, and the turns' latencies by position.
// A first turn's prompt is new to the server's cache and a later one
// resends a context, so their TTFTs differ by design: the step's pooled
// percentiles alone would hide which one an SLO binds on.

// turnRow is one position's row: its counts and latency summaries.
type turnRow struct {
	Position string
	report.TurnStats
}

// turnRows are a step's turns by position, first then later.
func turnRows(t *report.TurnPositions) []turnRow {
	if t == nil {
		return nil
	}
	return []turnRow{{"first", t.First}, {"later", t.Later}}
}

// sessionsLine says what became of a step's sessions, in one line.
func sessionsLine(c *report.SessionCounts) string {
	return fmt.Sprintf("%d sessions started, %d completed, %d cut by the drain bound; %d turns not sent; %d sub-agents started",
		c.Started, c.Completed, c.Cut, c.TurnsNotSent, c.SubAgents)
}

// writeSessionSummary writes, under the summary's table, each session
// step's sessions and a table of its turns by position.
func writeSessionSummary(w io.Writer, r *report.Report) {
	for i := range r.Steps {
		s := &r.Steps[i]
		if s.Sessions == nil {
			continue
		}
		fmt.Fprintf(w, "%s: %s\n", s.Name, sessionsLine(s.Sessions))
		rows := turnRows(s.Turns)
		if rows == nil {
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  turns\tsent\tok\tfailed\tttft p50\tttft p95\tttft p99\titl p50\titl p95\titl p99\te2el p50\te2el p95\te2el p99\t")
		for _, t := range rows {
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%s\t%s\t%s\t\n", t.Position, t.Sent, t.Completed, t.Failed,
				percentileCells(t.TTFT), percentileCells(t.ITL), percentileCells(t.E2EL))
		}
		tw.Flush()
	}
}

// hasSessions reports whether any step replayed sessions.
func hasSessions(r *report.Report) bool {
	for i := range r.Steps {
		if r.Steps[i].Sessions != nil {
			return true
		}
	}
	return false
}

// writeSessions writes a session step's sessions and its turns by position.
func writeSessions(w io.Writer, s *report.StepReport) {
	c := s.Sessions
	if c == nil {
		return
	}
	think := fmt.Sprintf("think ×%g", c.ThinkTimeScale)
	if c.MaxThinkS > 0 {
		think += fmt.Sprintf(", at most %gs", c.MaxThinkS)
	}
	fmt.Fprintf(w, "  sessions: %d started of %d, %d completed, %d cut by the drain bound (%d turns never sent), %d sub-agents; %s\n",
		c.Started, c.Scheduled, c.Completed, c.Cut, c.TurnsNotSent, c.SubAgents, think)
	if t := s.Turns; t != nil {
		for _, p := range []struct {
			name string
			ts   report.TurnStats
		}{{"first", t.First}, {"later", t.Later}} {
			fmt.Fprintf(w, "  %s turns: %d sent, %d ok, %d failed; ttft p50 %s p95 %s; e2el p50 %s\n",
				p.name, p.ts.Sent, p.ts.Completed, p.ts.Failed, msCell(p.ts.TTFT.P50, p.ts.TTFT.Count),
				msCell(p.ts.TTFT.P95, p.ts.TTFT.Count), msCell(p.ts.E2EL.P50, p.ts.E2EL.Count))
		}
	}
}

// percentileCells are p50, p95 and p99 as three tab-separated cells.
func percentileCells(s stats.Summary) string {
	return msCell(s.P50, s.Count) + "\t" + msCell(s.P95, s.Count) + "\t" + msCell(s.P99, s.Count)
}

// htmlSessions is a session step's block in the HTML page (the page's
// template calls it in each step's section): the sessions' fates, then the
// turns by position with the same percentiles as the steps' table.
const htmlSessions = `{{with .Sessions}}<h3>Sessions</h3>
<dl>
<dt>started</dt><dd>{{.Started}} of {{.Scheduled}} scheduled</dd>
<dt>completed</dt><dd>{{.Completed}}</dd>
<dt>cut by the drain bound</dt><dd>{{.Cut}}</dd>
<dt>turns not sent</dt><dd>{{.TurnsNotSent}}</dd>
<dt>sub-agents started</dt><dd>{{.SubAgents}}</dd>
<dt>think times</dt><dd>×{{num .ThinkTimeScale}}{{with .MaxThinkS}}, at most {{num .}} s{{end}}</dd>
</dl>{{end}}
{{with turnRows .Turns}}<h3>Turns by position</h3><div class="wide"><table>
<thead><tr><th>turns</th><th>sent</th><th>ok</th><th>failed</th><th>TTFT p50</th><th>TTFT p95</th><th>TTFT p99</th><th>ITL p50</th><th>ITL p95</th><th>ITL p99</th><th>E2EL p50</th><th>E2EL p95</th><th>E2EL p99</th></tr></thead>
<tbody>{{range .}}<tr><td>{{.Position}}</td><td>{{.Sent}}</td><td>{{.Completed}}</td><td>{{.Failed}}</td><td>{{ms .TTFT.P50 .TTFT.Count}}</td><td>{{ms .TTFT.P95 .TTFT.Count}}</td><td>{{ms .TTFT.P99 .TTFT.Count}}</td><td>{{ms .ITL.P50 .ITL.Count}}</td><td>{{ms .ITL.P95 .ITL.Count}}</td><td>{{ms .ITL.P99 .ITL.Count}}</td><td>{{ms .E2EL.P50 .E2EL.Count}}</td><td>{{ms .E2EL.P95 .E2EL.Count}}</td><td>{{ms .E2EL.P99 .E2EL.Count}}</td></tr>
{{end}}</tbody></table></div>
<p class="note">A first turn (every session's, sub-agents' included) sends a prompt the server's cache has not seen; a later turn resends its session's context.</p>{{end}}
`

package render

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/llmslo/llmslo/internal/reporttest"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replayReport is a session replay's step beside a request step.
func replayReport() *report.Report {
	sum := func(p50, p95, p99 float64) stats.Summary {
		return stats.Summary{Count: 40, P50: p50, P95: p95, P99: p99}
	}
	return &report.Report{Verdict: report.VerdictPass, Steps: []report.StepReport{
		{Name: "rate=4", RateTarget: 4, RateAchieved: 3.9, Verdict: report.VerdictPass, TTFT: sum(80, 150, 210)},
		{Name: "rate=0.2", RateTarget: 0.2, RateAchieved: 0.19, Verdict: report.VerdictPass, TTFT: sum(100, 900, 2000),
			Sessions: &report.SessionCounts{Scheduled: 13, Started: 12, Completed: 9, Cut: 3, TurnsNotSent: 17, SubAgents: 5, ThinkTimeScale: 0.5, MaxThinkS: 30},
			Turns: &report.TurnPositions{
				First: report.TurnStats{Sent: 17, Completed: 16, Failed: 1, TTFT: sum(812.5, 1403.25, 2210), ITL: sum(21.5, 44.25, 61.5), E2EL: sum(5120, 9100, 12004)},
				Later: report.TurnStats{Sent: 230, Completed: 229, Failed: 1, TTFT: sum(95.5, 180.25, 333), ITL: sum(19.5, 40.75, 58.25), E2EL: sum(4010, 8200, 11020)},
			}},
	}}
}

// cells splits a table row on runs of two or more spaces.
func cells(line string) []string {
	return regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
}

func TestSummaryShowsASessionReplaysSessionsAndTurns(t *testing.T) {
	var out bytes.Buffer
	WriteSummary(&out, replayReport())
	text := out.String()
	assert.Contains(t, text, "rate=0.2: 12 sessions started, 9 completed, 3 cut by the drain bound; 17 turns not sent; 5 sub-agents started")
	assert.NotContains(t, text, "rate=4: ", "a request step has no sessions")
	var first, later, header []string
	for _, line := range strings.Split(text, "\n") {
		switch c := cells(line); c[0] {
		case "turns":
			header = c
		case "first":
			first = c
		case "later":
			later = c
		}
	}
	require.NotNil(t, header, text)
	assert.Equal(t, []string{"turns", "sent", "ok", "failed", "ttft p50", "ttft p95", "ttft p99", "itl p50", "itl p95", "itl p99",
		"e2el p50", "e2el p95", "e2el p99"}, header)
	assert.Equal(t, []string{"first", "17", "16", "1", "812.5ms", "1403.2ms", "2210.0ms", "21.5ms", "44.2ms", "61.5ms",
		"5120.0ms", "9100.0ms", "12004.0ms"}, first, text)
	assert.Equal(t, []string{"later", "230", "229", "1", "95.5ms", "180.2ms", "333.0ms", "19.5ms", "40.8ms", "58.2ms",
		"4010.0ms", "8200.0ms", "11020.0ms"}, later, text)
	assert.Less(t, strings.Index(text, "rate=0.2: 12 sessions"), strings.Index(text, "verdict: pass"))
}

func TestHTMLShowsASessionReplaysSessionsAndTurns(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, replayReport()))
	page := b.String()
	// The request step's section has no session block; the replay's has.
	reqSection := page[strings.Index(page, `id="step-1"`):strings.Index(page, `id="step-2"`)]
	assert.NotContains(t, reqSection, "Sessions</h3>")
	assert.NotContains(t, reqSection, "Turns by position")
	section := html.UnescapeString(stripTags(page[strings.Index(page, `id="step-2"`):]))
	for _, want := range []string{
		"started 12 of 13 scheduled", "completed 9", "cut by the drain bound 3", "turns not sent 17", "sub-agents started 5",
		"think times ×0.5, at most 30 s",
		"first 17 16 1 812 ms 1403 ms 2210 ms 21.5 ms 44.2 ms 61.5 ms 5120 ms 9100 ms 12004 ms",
		"later 230 229 1 95.5 ms 180 ms 333 ms 19.5 ms 40.8 ms 58.2 ms 4010 ms 8200 ms 11020 ms",
	} {
		assert.Contains(t, section, want)
	}
	assert.Contains(t, page, "achieved rate (sessions/s)", "the knee's axis counts sessions")
}

// stripTags reduces HTML to its text, one space between elements.
func stripTags(s string) string {
	s = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(s, " ")
	return strings.Join(strings.Fields(s), " ")
}

func TestSessionStepsSaySessionsPerSecond(t *testing.T) {
	st := reporttest.SessionStep()
	var out bytes.Buffer
	WriteSummary(&out, &report.Report{Steps: []report.StepReport{st}, Verdict: report.VerdictPass})
	assert.Contains(t, out.String(), "asked sessions/s")
	assert.Contains(t, out.String(), "started sessions/s")
	out.Reset()
	WriteStep(&out, &st)
	assert.Contains(t, out.String(), "0.45 sessions/s achieved (target 0.5): started 9 of the 10 sessions due in the 20 s window")
	assert.Contains(t, out.String(), "sessions: 10 started of 10, 9 completed, 1 cut by the drain bound (3 turns never sent), 4 sub-agents; think ×0.1, at most 2s")
	assert.Contains(t, out.String(), "first turns: 14 sent, 14 ok, 0 failed; ttft p50 812.0ms p95 1400.0ms")
	assert.Contains(t, out.String(), "later turns: 120 sent, 119 ok, 1 failed; ttft p50 95.0ms p95 180.0ms")
	assert.Contains(t, Markdown("gate", &report.Report{Steps: []report.StepReport{st}}), "| step | sessions/s |")

	out.Reset()
	req := report.StepReport{Name: "rate=4", RateTarget: 4, RateAchieved: 4}
	WriteStep(&out, &req)
	assert.Contains(t, out.String(), "4.00 req/s achieved (target 4)", "a report without the window's counts")
	out.Reset()
	req.RateAchieved, req.DurationS, req.Evidence = 3.95, 20, &report.StepEvidence{Due: 80, SentInWindow: 79}
	WriteStep(&out, &req)
	assert.Contains(t, out.String(), "3.95 req/s achieved (target 4): sent 79 of the 80 requests due in the 20 s window")
	assert.NotContains(t, out.String(), "turns:")
}

package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/llmslo/llmslo/load/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sessionStep() StepReport {
	return StepReport{Name: "rate=0.5", RateTarget: 0.5, RateAchieved: 0.45, DurationS: 20, Verdict: VerdictPass,
		Sessions: &SessionCounts{Scheduled: 10, Started: 10, StartedInWindow: 9, Completed: 9, Cut: 1, TurnsNotSent: 3, SubAgents: 4,
			ThinkTimeScale: 0.1, MaxThinkS: 2, ExpectedPrefixHitRate: 0.86},
		Turns: &TurnPositions{
			First: TurnStats{Sent: 14, Completed: 14, TTFT: stats.Summary{Count: 14, P50: 812, P95: 1400}},
			Later: TurnStats{Sent: 120, Completed: 119, Failed: 1, TTFT: stats.Summary{Count: 120, P50: 95, P95: 180}},
		}}
}

func TestSessionStepsReportTurnsByPosition(t *testing.T) {
	b, err := json.Marshal(sessionStep())
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	turns := m["turns"].(map[string]any)
	assert.Equal(t, 812.0, turns["first"].(map[string]any)["ttft_ms"].(map[string]any)["p50"])
	assert.Equal(t, 95.0, turns["later"].(map[string]any)["ttft_ms"].(map[string]any)["p50"])
	assert.Equal(t, 0.86, m["sessions"].(map[string]any)["expected_prefix_hit_rate"])

	b, err = json.Marshal(StepReport{Name: "rate=4"})
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"turns"`, "a request step has no turns section")
	assert.NotContains(t, string(b), `"sessions"`)
}

func TestSessionStepsSaySessionsPerSecond(t *testing.T) {
	st := sessionStep()
	var out bytes.Buffer
	WriteSummary(&out, &Report{Steps: []StepReport{st}, Verdict: VerdictPass})
	assert.Contains(t, out.String(), "asked sessions/s")
	assert.Contains(t, out.String(), "started sessions/s")
	out.Reset()
	WriteStep(&out, &st)
	assert.Contains(t, out.String(), "0.45 sessions/s achieved (target 0.5): started 9 of the 10 sessions due in the 20 s window")
	assert.Contains(t, out.String(), "sessions: 10 started of 10, 9 completed, 1 cut by the drain bound (3 turns never sent), 4 sub-agents; think ×0.1, at most 2s")
	assert.Contains(t, out.String(), "first turns: 14 sent, 14 ok, 0 failed; ttft p50 812.0ms p95 1400.0ms")
	assert.Contains(t, out.String(), "later turns: 120 sent, 119 ok, 1 failed; ttft p50 95.0ms p95 180.0ms")
	assert.Contains(t, Markdown("gate", &Report{Steps: []StepReport{st}}), "| step | sessions/s |")

	out.Reset()
	req := StepReport{Name: "rate=4", RateTarget: 4, RateAchieved: 4}
	WriteStep(&out, &req)
	assert.Contains(t, out.String(), "4.00 req/s achieved (target 4)", "a report without the window's counts")
	out.Reset()
	req.RateAchieved, req.DurationS, req.Evidence = 3.95, 20, &StepEvidence{Due: 80, SentInWindow: 79}
	WriteStep(&out, &req)
	assert.Contains(t, out.String(), "3.95 req/s achieved (target 4): sent 79 of the 80 requests due in the 20 s window")
	assert.NotContains(t, out.String(), "turns:")
}

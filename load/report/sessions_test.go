package report

import (
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

package report_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/reporttest"
	"github.com/llmslo/llmslo/load/report"
)

func TestSessionStepsReportTurnsByPosition(t *testing.T) {
	b, err := json.Marshal(reporttest.SessionStep())
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	turns := m["turns"].(map[string]any)
	assert.Equal(t, 812.0, turns["first"].(map[string]any)["ttft_ms"].(map[string]any)["p50"])
	assert.Equal(t, 95.0, turns["later"].(map[string]any)["ttft_ms"].(map[string]any)["p50"])
	assert.Equal(t, 0.86, m["sessions"].(map[string]any)["expected_prefix_hit_rate"])

	b, err = json.Marshal(report.StepReport{Name: "rate=4"})
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"turns"`, "a request step has no turns section")
	assert.NotContains(t, string(b), `"sessions"`)
}

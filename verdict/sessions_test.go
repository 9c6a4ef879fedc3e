package verdict

import (
	"testing"
	"time"

	"github.com/llmslo/llmslo/observe"
	"github.com/llmslo/llmslo/report"
	"github.com/stretchr/testify/assert"
)

// A session replay's rates count sessions: the hazards say so.
func TestSessionStepHazardsSpeakInSessions(t *testing.T) {
	p99 := []SLO{{Metric: report.MetricTTFT, Percentile: 99, Limit: time.Second}}
	s := stepWithTTFT(500, 10*time.Millisecond, p99)
	s.RateTarget, s.Sessions = 0.5, &report.SessionCounts{}
	h, ok := tooFewSamples(s, stepEvidence{slos: p99}, DefaultThresholds())
	assert.True(t, ok)
	assert.Contains(t, h.Fix, "at 0.5 sessions/s")

	s.RateAchieved = 0.4
	h, ok = clientSaturation(s, stepEvidence{Evidence: observe.Evidence{ScheduleRate: 0.5}}, DefaultThresholds())
	assert.True(t, ok)
	assert.Contains(t, h.Message, "achieved 0.40 sessions/s, 80.0% of the schedule's 0.50")
}

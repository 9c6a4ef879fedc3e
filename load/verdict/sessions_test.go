package verdict

import (
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/stretchr/testify/assert"
)

// A session replay's rates count sessions: the hazards say so.
func TestSessionStepHazardsSpeakInSessions(t *testing.T) {
	p99 := []SLO{{Metric: report.MetricTTFT, Percentile: 99, Limit: time.Second}}
	s := stepWithTTFT(300, 10*time.Millisecond, p99)
	s.RateTarget, s.Sessions = 0.5, &report.SessionCounts{}
	f := tooFewSamples(s, stepEvidence{slos: p99}, DefaultThresholds())
	assert.True(t, f.decides)
	assert.Contains(t, f.Fix, "at 0.5 sessions/s")

	// A session step's load is judged on its turns.
	f = clientSaturation(s, stepEvidence{Evidence: observe.Evidence{Due: 300, SentInWindow: 200}}, DefaultThresholds())
	assert.True(t, f.decides)
	assert.Contains(t, f.Message, "200 of the 300 turns due in the window went out within it")
}

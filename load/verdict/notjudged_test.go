package verdict

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/vllmapi"
)

func checks(nj []report.NotJudged) []string {
	var out []string
	for _, n := range nj {
		out = append(out, n.Check)
	}
	return out
}

// A server without /metrics: the warm cache, the queue and what binds are
// said to be unjudged, with the reason; with metrics, nothing is listed.
func TestNotJudgedWithoutMetrics(t *testing.T) {
	l := lateStep{n: 270, ttft: 100 * time.Millisecond, e2el: time.Second, lag: []time.Duration{time.Millisecond}}
	s, ev := l.build()
	s.Server = vllmapi.ServerStats{Samples: 1, Error: "GET /metrics: 404 Not Found"}
	ev.LengthChecked = 270
	j := Judge(s, ev, Criteria{})
	assert.Equal(t, []string{HazardWarmCache, CheckOverCapacity, CheckBinding}, checks(j.NotJudged))
	for _, n := range j.NotJudged {
		assert.Contains(t, n.Reason, "the server exposes no metrics")
	}
	assert.Equal(t, report.VerdictPass, j.Verdict, "what could not be judged does not by itself fail a step")

	// Cached tokens in usage are warm_cache's other witness.
	s.PromptCache = report.PromptCache{Requests: 270, PromptTokens: 27000}
	assert.Equal(t, []string{CheckOverCapacity, CheckBinding}, checks(Judge(s, ev, Criteria{}).NotJudged))

	s.Server = vllmapi.ServerStats{MetricsAvailable: true, Samples: 40}
	assert.Empty(t, Judge(s, ev, Criteria{}).NotJudged)

	// No usage at all: lengths unknown. A server not held to output
	// lengths: says how many ended early.
	ev.LengthChecked = 0
	assert.Equal(t, []string{CheckLengths}, checks(Judge(s, ev, Criteria{}).NotJudged))
	ev.LengthChecked, s.LengthEndedEarly = 270, 12
	j = Judge(s, ev, Criteria{LengthsAdvisory: true})
	require.Equal(t, []string{CheckOutputLength}, checks(j.NotJudged))
	assert.Contains(t, j.NotJudged[0].Reason, "12 of 270 requests ended early")
}

// An SLO with nothing measured says so: no observed value, no pass.
func TestNoObservations(t *testing.T) {
	slos, err := ParseSLOs([]string{"ttft.p95<=500ms"})
	require.NoError(t, err)
	s := &report.StepReport{Requests: report.RequestCounts{Scheduled: 40, Sent: 40, Failed: 40}}
	r := Check(s, slos[0], false)
	assert.True(t, r.NoObservations)
	assert.False(t, r.Pass)
	assert.Zero(t, r.Samples)
}

package observe

import (
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTurnsSplitByPositionAndCountSessions(t *testing.T) {
	t0 := time.Now()
	rec := NewRecorder(t0, 10*time.Second, PerRequestLimits{}, LengthCheck{})
	tr := NewTurns(rec)
	ms := time.Millisecond
	turn := func(agent string, k int, intended time.Duration, ttft time.Duration) *client.Outcome {
		in := t0.Add(intended)
		return &client.Outcome{Request: workload.Request{Agent: agent, Turn: k, InputTokens: 10, OutputTokens: 2},
			Intended: in, Sent: in, First: in.Add(ttft), Last: in.Add(ttft + 5*ms), ITL: []time.Duration{5 * ms},
			TokenEvents: 2, CompletionTokens: 2, PromptTokens: 10, UsageReported: true}
	}
	for _, o := range []*client.Outcome{
		turn("", 0, 0, 300*ms), turn("", 1, time.Second, 40*ms), turn("", 2, 2*time.Second, 60*ms),
		turn("sub", 0, 500*ms, 200*ms), turn("sub", 1, 800*ms, 20*ms),
	} {
		tr.Started(o.Intended)
		tr.Record(o, o.Last)
	}
	// A later turn still waiting for its first token at the drain bound:
	// its wait so far, 900 ms, is a lower bound.
	late := turn("", 3, 3*time.Second, 0)
	late.First, late.Last, late.ITL, late.Class = time.Time{}, time.Time{}, nil, client.ClassUnfinished
	tr.Started(late.Intended)
	tr.Record(late, late.Intended.Add(900*ms))

	tr.SessionEnded(t0, t0.Add(ms), 2, true)
	tr.SessionEnded(t0.Add(2*time.Second), t0.Add(2*time.Second+3*ms), 0, false)
	tr.SessionEnded(t0.Add(4*time.Second), time.Time{}, 0, false) // its first turn was dropped

	s, ev := rec.Summary()
	assert.Equal(t, 6, s.Requests.Sent, "every turn reached the step's recorder")
	assert.Equal(t, 6, ev.Due, "the turns due in the window, which client_saturation judges")
	tr.Fill(&s, 4, t0, 10*time.Second)
	require.NotNil(t, s.Turns)
	f, l := s.Turns.First, s.Turns.Later
	assert.Equal(t, 2, f.Sent, "the session's and the sub-agent's first turns")
	assert.Equal(t, 4, l.Sent)
	assert.Equal(t, 3, l.Completed)
	assert.Equal(t, 1, l.Failed, "the unfinished turn")
	assert.Equal(t, int64(2), f.TTFT.Count)
	assert.InDelta(t, 300, f.TTFT.Max, 1)
	assert.InDelta(t, 200, f.TTFT.P50, 1)
	assert.Equal(t, int64(4), l.TTFT.Count, "the unfinished turn enters as a lower bound")
	assert.InDelta(t, 900, l.TTFT.Max, 1)
	assert.Equal(t, int64(20), f.InputTokens)

	c := s.Sessions
	require.NotNil(t, c)
	assert.Equal(t, 4, c.Scheduled)
	assert.Equal(t, 3, c.Started)
	assert.Equal(t, 2, c.Completed)
	assert.Equal(t, 1, c.Cut)
	assert.Equal(t, 2, c.TurnsNotSent)
	assert.Equal(t, 1, c.SubAgents)
	assert.InDelta(t, 2/10.0, s.RateAchieved, 1e-9, "sessions whose first turn went out in the 10 s window, per second")
	assert.Equal(t, 4, s.Sessions.Scheduled, "sessions the schedule started in the window")

	// A first turn sent after the window's end does not count as sent in it.
	tr.SessionEnded(t0.Add(9*time.Second), t0.Add(10*time.Second+ms), 0, false)
	tr.Fill(&s, 5, t0, 10*time.Second)
	assert.InDelta(t, 2/10.0, s.RateAchieved, 1e-9)
}

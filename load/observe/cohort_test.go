package observe

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/llmslo/llmslo/load/client"
)

// A cohort holds the first requests in send order that have all finished:
// a slow request in flight holds back the fast ones sent after it, so that
// a look never judges the fast without the slow.
func TestCohortWaitsForTheSlowRequest(t *testing.T) {
	t0 := time.Now()
	c := NewCohort(t0, 10*time.Second, PerRequestLimits{}, LengthCheck{})
	outcome := func(i int, ttft time.Duration) *client.Outcome {
		o := &client.Outcome{Intended: t0.Add(time.Duration(i) * 100 * time.Millisecond)}
		o.Sent, o.First, o.Last = o.Intended, o.Intended.Add(ttft), o.Intended.Add(ttft+time.Millisecond)
		o.CompletionTokens = 2
		return o
	}
	c.Started(t0.Add(-time.Second)) // the warm-up's: never waited for
	slow := outcome(1, 3*time.Second)
	var fast []*client.Outcome
	for i := range 5 {
		c.Started(t0.Add(time.Duration(i) * 100 * time.Millisecond))
		if i != 1 {
			fast = append(fast, outcome(i, 10*time.Millisecond))
		}
	}
	for _, o := range fast {
		c.FirstToken(o.Intended, o.First)
		c.Record(o, o.Last)
	}
	s, _, horizon, n := c.Summary(t0.Add(time.Second))
	assert.Equal(t, 1, n, "only the first request is complete with all before it")
	assert.Equal(t, slow.Intended, horizon)
	assert.Equal(t, int64(1), s.Histograms["ttft"].Count())
	// The slow request's first token comes: TTFT's cohort holds all five,
	// while the finished cohort still waits for its end.
	c.FirstToken(slow.Intended, slow.First)
	s, _, _, n = c.Summary(t0.Add(3500 * time.Millisecond))
	assert.Equal(t, 1, n)
	assert.Equal(t, int64(5), s.Histograms["ttft"].Count())
	assert.Equal(t, int64(1), s.Histograms["e2el"].Count())
	c.Record(slow, slow.Last)
	c.Dropped(t0.Add(600 * time.Millisecond))
	s, _, horizon, n = c.Summary(t0.Add(4 * time.Second))
	assert.Equal(t, 6, n)
	assert.Equal(t, t0.Add(4*time.Second), horizon, "nothing in flight: the cohort reaches now")
	assert.Equal(t, int64(5), s.Histograms["ttft"].Count())
	assert.Equal(t, 3000.0, s.TTFT.Max)
	assert.Equal(t, 1, s.Requests.Dropped)
}

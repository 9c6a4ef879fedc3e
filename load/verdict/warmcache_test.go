package verdict

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/vllmapi"
)

func ptr(f float64) *float64 { return &f }

func TestWarmCacheWitnesses(t *testing.T) {
	th := DefaultThresholds()
	ev := stepEvidence{expectedHitRate: 0, passing: true}
	step := func(hits, queries, preemptions float64) *report.StepReport {
		s := &report.StepReport{Requests: report.RequestCounts{Completed: 100},
			Tokens: report.TokenCounts{Input: 100 * 1024, Output: 100 * 256}}
		s.Server = vServer(hits, queries, preemptions)
		return s
	}

	// 20% hits, no preemption: a warm cache.
	f := warmCache(step(20_000, 100_000, 0), ev, th)
	assert.True(t, f.decides)
	assert.Contains(t, f.Message, "served 20%")

	// The same counters with 16 preemptions of ~1152-token contexts: the
	// resumes explain 18,432 hit tokens, what is left is 2% — not a warm
	// cache, on a server whose counters include resumed lookups.
	f = warmCache(step(20_000, 100_000, 16), ev, th)
	assert.False(t, f.seen)

	// 60% hits that 16 preemptions cannot explain still fire, and say so.
	f = warmCache(step(60_000, 100_000, 16), ev, th)
	assert.True(t, f.decides)
	assert.Contains(t, f.Message, "even after discounting")

	// The per-request witness outranks the counters: cached_tokens are
	// fixed at each request's first scheduling.
	s := step(60_000, 100_000, 0)
	s.PromptCache = report.PromptCache{Requests: 100, CachedTokens: 1000, PromptTokens: 102_400}
	f = warmCache(s, ev, th)
	assert.False(t, f.seen, "1% cached per request")
	s.PromptCache.CachedTokens = 80_000
	f = warmCache(s, ev, th)
	assert.True(t, f.decides)
	assert.Contains(t, f.Message, "usage cached_tokens over 100 requests")

	// Beside a failure a warm cache changes nothing: it only flatters.
	ev.passing = false
	f = warmCache(s, ev, th)
	assert.True(t, f.seen)
	assert.False(t, f.decides)
	assert.Contains(t, f.Message, "never slower, so the failure stands")
}

func vServer(hits, queries, preemptions float64) (s vllmapi.ServerStats) {
	s.MetricsAvailable = true
	s.PrefixCacheHitRate = ptr(hits / queries)
	s.PrefixHitTokens, s.PrefixQueryTokens, s.Preemptions = hits, queries, preemptions
	return s
}

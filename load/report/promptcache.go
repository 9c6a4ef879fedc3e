package report

// PromptCache is what the server said, request by request, about its
// prefix cache: Requests reported cached_tokens, CachedTokens of their
// PromptTokens came from the cache. Unlike the server's counters it counts
// each request once, at its first scheduling, whatever preemptions follow.
type PromptCache struct {
	Requests     int   `json:"requests"`
	CachedTokens int64 `json:"cached_tokens"`
	PromptTokens int64 `json:"prompt_tokens"`
}

// HitRate is CachedTokens/PromptTokens; ok is false when no request
// reported it.
func (p PromptCache) HitRate() (rate float64, ok bool) {
	if p.Requests == 0 || p.PromptTokens == 0 {
		return 0, false
	}
	return float64(p.CachedTokens) / float64(p.PromptTokens), true
}

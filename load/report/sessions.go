package report

import "github.com/llmslo/llmslo/load/stats"

// SessionCounts is what became of the sessions a step measured: those whose
// start fell inside its measured window (docs/sessions.md). In such a step
// RateTarget and RateAchieved count sessions per second (started: the
// first turn's send), and Requests counts their turns.
type SessionCounts struct {
	Scheduled int `json:"scheduled"`
	Started   int `json:"started"`
	// StartedInWindow counts the measured sessions whose first turn went
	// out before the window ended: the achieved rate's numerator.
	StartedInWindow int `json:"started_in_window"`
	// Completed sessions had every turn answered (or failed) before the
	// drain bound; Cut ones had a turn unfinished at the bound or never
	// sent, TurnsNotSent counting the latter (not failures: they were never
	// due before the step ended).
	Completed    int `json:"completed"`
	Cut          int `json:"cut"`
	TurnsNotSent int `json:"turns_not_sent"`
	// SubAgents counts the sub-agent sessions whose first turn was sent.
	SubAgents int `json:"sub_agents"`
	// ThinkTimeScale and MaxThinkS are how think times were replayed
	// (MaxThinkS 0: uncapped).
	ThinkTimeScale float64 `json:"think_time_scale"`
	MaxThinkS      float64 `json:"max_think_s,omitempty"`
	// ExpectedPrefixHitRate is the hit rate reuse inside sessions implies,
	// which warm_cache judges the server's against.
	ExpectedPrefixHitRate float64 `json:"expected_prefix_hit_rate"`
}

// TurnPositions splits a session step's turns by position: First holds
// every session's first turn (sub-agents' included), whose prompt the cache
// has not seen; Later the turns that resend a context.
type TurnPositions struct {
	First TurnStats `json:"first"`
	Later TurnStats `json:"later"`
}

// TurnStats are the latencies of turns at one position, defined as the
// step's own (TTFT from the intended time; unfinished and abandoned turns
// as lower bounds).
type TurnStats struct {
	Sent      int `json:"sent"`
	Completed int `json:"completed"`
	// Failed counts failed and unfinished turns.
	Failed int `json:"failed"`
	// InputTokens are the prompt tokens the server reported for completed
	// turns; CachedTokens those it said came from its prefix cache, where
	// it reported them.
	InputTokens  int64         `json:"input_tokens"`
	CachedTokens int64         `json:"cached_tokens,omitempty"`
	TTFT         stats.Summary `json:"ttft_ms"`
	ITL          stats.Summary `json:"itl_ms"`
	E2EL         stats.Summary `json:"e2el_ms"`
}

// RateUnit is what the step's rates count: sessions/s for a session replay,
// req/s otherwise.
func (s *StepReport) RateUnit() string {
	if s.Sessions != nil {
		return "sessions/s"
	}
	return "req/s"
}

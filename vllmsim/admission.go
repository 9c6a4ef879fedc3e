package vllmsim

import (
	"fmt"
	"net/http"

	"github.com/llmslo/llmslo/vllmsim/drive"
)

// Admission control as vLLM has it since 0.29 (AsyncLLM's admission check,
// in the API server): --max-num-queued-reqs caps the requests in flight,
// waiting plus running, and --max-num-queued-tokens the prompt tokens of
// requests still in prefill (whole prompts, not what is left of them).
// Both are off by default. A refused request never reaches the engine: it
// gets 503 with vLLM's own words, and vllm:admission_rejections_total
// counts it by reason.
const (
	// MsgQueueOverflow is vLLM's QueueOverflowError.
	MsgQueueOverflow = "The engine is currently busy and cannot accept new requests. Please try again later or on a different instance."
	// MsgQueuedTokens is vLLM's MaxQueuedTokensError.
	MsgQueuedTokens = "The engine has reached its prefill token backlog limit. Please try again later or on a different instance."

	// The reason label of vllm:admission_rejections_total: the limits'
	// names (vLLM's pull request 55812 adds the label; its values are
	// assumed).
	RejectQueuedReqs   = drive.RejectQueuedReqs
	RejectQueuedTokens = drive.RejectQueuedTokens
)

// rejectMessage is the 503's message for a refusal's reason.
func rejectMessage(reason string) string {
	if reason == RejectQueuedTokens {
		return MsgQueuedTokens
	}
	return MsgQueueOverflow
}

// checkAdmission validates the limits.
func (c *Config) checkAdmission() error {
	if c.MaxNumQueuedReqs < 0 || c.MaxNumQueuedTokens < 0 {
		return fmt.Errorf("vllmsim: --max-num-queued-reqs and --max-num-queued-tokens must not be negative, got %d and %d",
			c.MaxNumQueuedReqs, c.MaxNumQueuedTokens)
	}
	return nil
}

// reject answers a request admission control refused.
func (s *Server) reject(w http.ResponseWriter, reason string) {
	s.metrics.Rejected(reason)
	s.writeError(w, http.StatusServiceUnavailable, rejectMessage(reason))
}

func init() {
	serveFlags["max-num-queued-reqs"] = intFlag(func(c *Config) *int { return &c.MaxNumQueuedReqs }, 1)
	serveFlags["max-num-queued-tokens"] = intFlag(func(c *Config) *int { return &c.MaxNumQueuedTokens }, 1)
}

package vllmsim

import (
	"net/http"
	"strconv"
)

// POST /reset_prefix_cache, as vLLM serves it: only in development mode
// (VLLM_SERVER_DEV_MODE=1; Config.DevMode, --dev-mode here), a 404
// otherwise. vLLM answers 200 whether or not the engine reset: its KV cache
// manager refuses while running requests hold blocks and only logs
// "Failed to reset prefix cache". ?reset_running_requests=true preempts
// the running requests first (they are recomputed), so that the reset
// succeeds. Stats counts resets done and refused.

// handleResetPrefixCache resets at once when nothing runs, refuses when
// something runs and the client did not ask to preempt it, and otherwise
// has the engine loop preempt and reset between two steps.
func (s *Server) handleResetPrefixCache(w http.ResponseWriter, r *http.Request) {
	preempt, _ := strconv.ParseBool(r.URL.Query().Get("reset_running_requests"))
	done := s.loop.ResetPrefixCache(preempt)
	if done == nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	select {
	case <-done:
	case <-r.Context().Done():
		return
	case <-s.closing:
		return
	}
	w.WriteHeader(http.StatusOK)
}

// DevModeEnv is vLLM's variable for its development endpoints; the
// simulator's command reads it as vLLM does, the library takes
// Config.DevMode.
const DevModeEnv = "VLLM_SERVER_DEV_MODE"

func init() {
	serveFlags["dev-mode"] = serveFlag{boolean: true, set: func(c *Config, _ string) error { c.DevMode = true; return nil }}
}

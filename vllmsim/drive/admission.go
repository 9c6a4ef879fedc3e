package drive

// The reasons admission control refuses a request: the limits' names, as
// vllm:admission_rejections_total's reason label has them.
const (
	RejectQueuedReqs   = "max_num_queued_reqs"   // --max-num-queued-reqs
	RejectQueuedTokens = "max_num_queued_tokens" // --max-num-queued-tokens
)

// admission counts what the limits cap. It lives in the engine loop and is
// guarded by its lock, so a request is counted in the same critical
// section that hands it to the engine.
type admission struct {
	maxReqs, maxTokens int // 0: no limit
	reqs               int // requests handed to the engine, not finished
	prefillTokens      int // prompt tokens of those with no token yet
}

// admit counts st in, or names the limit that refuses it. As in vLLM, a
// limit refuses once it is reached: a request is refused when the count
// already stands at the limit, whatever its own size.
func (a *admission) admit(st *Stream) string {
	switch {
	case a.maxReqs > 0 && a.reqs >= a.maxReqs:
		return RejectQueuedReqs
	case a.maxTokens > 0 && a.prefillTokens >= a.maxTokens:
		return RejectQueuedTokens
	}
	a.reqs++
	a.prefillTokens += st.Seq.PromptLen()
	st.inFlight, st.inPrefill = true, true
	return ""
}

// prefilled counts st out of the prefill backlog once its first token came.
func (a *admission) prefilled(st *Stream) {
	if st.inPrefill {
		st.inPrefill = false
		a.prefillTokens -= st.Seq.PromptLen()
	}
}

// release counts st out altogether: it finished or was aborted.
func (a *admission) release(st *Stream) {
	a.prefilled(st)
	if st.inFlight {
		st.inFlight = false
		a.reqs--
	}
}

package vllmsim

import (
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

// stepStarted records the queue time of sequences scheduled for the first
// time, from when the engine got them, as vLLM measures it, and marks when
// each was first scheduled: the start of its prefill and of its inference
// (RUNNING) time. It runs on the engine loop, as token does.
func (m *metrics) stepStarted(now time.Time, admitted []*engine.Seq) {
	for _, s := range admitted {
		if st, ok := s.Owner.(*stream); ok {
			st.scheduledAt = now
			m.queue.Observe(now.Sub(st.queued).Seconds())
		}
	}
}

// stepDone records a step's tokens: those of prompts computed and those
// generated (vllm:iteration_tokens_total).
func (m *metrics) stepDone(tokens int) {
	if tokens > 0 {
		m.iterTokens.Observe(float64(tokens))
	}
}

// token records one generated token of st at time at; prev is the time of
// its previous token.
func (m *metrics) token(st *stream, first bool, at, prev time.Time) {
	if first {
		m.ttft.Observe(at.Sub(st.arrival).Seconds())
		m.promptTokens.Add(float64(st.seq.PromptLen()))
		m.cachedTokens.Add(float64(st.seq.CachedTokens()))
	} else {
		m.itl.Observe(at.Sub(prev).Seconds())
	}
	if st.seq.Done() {
		m.e2e.Observe(at.Sub(st.arrival).Seconds())
		m.promptHist.Observe(float64(st.seq.PromptLen()))
		m.genHist.Observe(float64(st.seq.Generated()))
		m.success.WithLabelValues(st.finishReason).Inc()
		// vLLM's phases: prefill from the first scheduling to the first
		// token, decode from there to the last, inference both.
		first := st.firstAt
		if first.IsZero() {
			first = at
		}
		if !st.scheduledAt.IsZero() {
			m.prefill.Observe(first.Sub(st.scheduledAt).Seconds())
			m.infer.Observe(at.Sub(st.scheduledAt).Seconds())
		}
		m.decode.Observe(at.Sub(first).Seconds())
	}
}

// rejected counts a request admission control refused.
func (m *metrics) rejected(reason string) { m.rejections.WithLabelValues(reason).Inc() }

// finished counts a request that ended without finishing.
func (m *metrics) finished(reason string) { m.success.WithLabelValues(reason).Inc() }

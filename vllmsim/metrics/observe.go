package metrics

import (
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

// Request is what a request's timings are computed from, as the engine
// loop knows it when one of its tokens comes.
type Request struct {
	Seq          *engine.Seq
	Arrival      time.Time // at the API server
	Scheduled    time.Time // first scheduled; zero if never
	First        time.Time // its first token; zero before it
	FinishReason string
}

// Queued records the queue time of a sequence scheduled for the first
// time, from when the engine got it, as vLLM measures it. It runs on the
// engine loop, as Token does.
func (m *Metrics) Queued(wait time.Duration) { m.queue.Observe(wait.Seconds()) }

// StepDone records a step's tokens: those of prompts computed and those
// generated (vllm:iteration_tokens_total).
func (m *Metrics) StepDone(tokens int) {
	if tokens > 0 {
		m.iterTokens.Observe(float64(tokens))
	}
}

// Token records one generated token of st at time at; prev is the time of
// its previous token.
func (m *Metrics) Token(st Request, first bool, at, prev time.Time) {
	if first {
		m.ttft.Observe(at.Sub(st.Arrival).Seconds())
		m.promptTokens.Add(float64(st.Seq.PromptLen()))
		m.cachedTokens.Add(float64(st.Seq.CachedTokens()))
	} else {
		m.itl.Observe(at.Sub(prev).Seconds())
	}
	if st.Seq.Done() {
		m.e2e.Observe(at.Sub(st.Arrival).Seconds())
		m.promptHist.Observe(float64(st.Seq.PromptLen()))
		m.genHist.Observe(float64(st.Seq.Generated()))
		m.success.WithLabelValues(st.FinishReason).Inc()
		// vLLM's phases: prefill from the first scheduling to the first
		// token, decode from there to the last, inference both.
		first := st.First
		if first.IsZero() {
			first = at
		}
		if !st.Scheduled.IsZero() {
			m.prefill.Observe(first.Sub(st.Scheduled).Seconds())
			m.infer.Observe(at.Sub(st.Scheduled).Seconds())
		}
		m.decode.Observe(at.Sub(first).Seconds())
	}
}

// Rejected counts a request admission control refused.
func (m *Metrics) Rejected(reason string) { m.rejections.WithLabelValues(reason).Inc() }

// Finished counts a request that ended without finishing.
func (m *Metrics) Finished(reason string) { m.success.WithLabelValues(reason).Inc() }

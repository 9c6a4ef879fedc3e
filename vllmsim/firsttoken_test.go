package vllmsim

import (
	"testing"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

// llama70FP8H200 is a large model on one GPU: Llama-3.1-70B with FP8
// weights on an H200, as in docs/simulator.md, "The first token".
var llama70FP8H200 = Config{Model: "RedHatAI/Llama-3.1-70B-Instruct-FP8", GPU: "h200"}

// A request that arrives on a lightly loaded large model gets its first
// token at the time docs/simulator.md derives by hand: three requests of
// 200 prompt tokens decode; a fourth is sent during the third step. Its
// path is the API server's intake, the rest of the running step, under
// async scheduling the step already planned, the mixed step that prefills
// it and decodes the others, and the output path, where it is the fourth
// request of that step's outputs.
func TestFirstTokenPathByHand(t *testing.T) {
	const in = 200
	c := resolved(t, llama70FP8H200)
	p := c.Profile
	// Step 1 prefills the three; step j ≥ 2 decodes them, each having
	// computed in + j − 2 tokens before it.
	prefill3 := p.StepTime(engine.StepShape{Tokens: 3 * in, Seqs: 3, Sampled: 3, PrefillPairs: 3 * in * (in + 1) / 2})
	decode := func(j int) time.Duration {
		return p.StepTime(engine.StepShape{Tokens: 3, Seqs: 3, Sampled: 3, ContextTokens: 3 * (in + j - 2)})
	}
	// mixed is step j with the new prompt in it.
	mixed := func(j int) time.Duration {
		return p.StepTime(engine.StepShape{Tokens: 3 + in, Seqs: 4, Sampled: 4, ContextTokens: 3 * (in + j - 2), PrefillPairs: in * (in + 1) / 2})
	}
	b := []time.Duration{0, 0, prefill3} // b[j]: when step j starts
	for j := 2; j <= 6; j++ {
		b = append(b, b[j]+decode(j))
	}
	intake := c.FrontendOverhead + in*c.FrontendPerToken
	// Sent so that the API server hands it over a third into step 3.
	sent := b[3] + decode(3)/3 - intake
	output := c.OutputOverhead + 4*c.OutputPerSeq

	for _, tc := range []struct {
		name  string
		cfg   Config
		first time.Duration // by hand
	}{
		// Async (the default): step 4 was planned when step 3 launched;
		// the prompt runs in step 5.
		{"async scheduling", llama70FP8H200, b[5] + mixed(5) + output},
		// vLLM before async scheduling: the prompt runs in step 4.
		{"no async scheduling", Config{Model: llama70FP8H200.Model, GPU: "h200", NoAsyncScheduling: true}, b[4] + mixed(4) + output},
	} {
		v := configRun(t, tc.cfg)
		// The three are in the engine at 0, together: the API server
		// takes nothing for them, only for the fourth.
		front := v.front
		v.front = engine.Frontend{}
		for i := range 3 {
			v.add(&vreq{prompt: wordsPrompt(i, in), out: 1000})
		}
		v.run(1) // step 1 is under way
		v.front = front
		r := &vreq{arrive: sent, prompt: wordsPrompt(9, in), out: 2}
		v.add(r)
		v.run(b[6] + time.Second)
		if r.first != tc.first {
			t.Errorf("%s: first token at %v, want %v by hand", tc.name, r.first, tc.first)
		}
		t.Logf("%s: TTFT %v = intake %v + rest of step 3 %v + %v + output %v", tc.name, r.ttft(), intake, b[4]-sent-intake,
			tc.first-output-b[4], output)
	}
	// The parts, for the docs: a decode step, the mixed step, the output.
	t.Logf("decode step %v, mixed step %v, prefill of the three %v", decode(4), mixed(5), prefill3)
}

// The p50 TTFT of ~200 in / 200 out Poisson traffic on the large model at
// light load, with the first-token path of today's vLLM and without its
// two V1 parts (async scheduling, the output path): the path adds about
// one decode step.
func TestFirstTokenLightLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("two minutes of virtual time, a few seconds")
	}
	// 1 ns: as good as no output path (0 means the default).
	before := Config{Model: llama70FP8H200.Model, GPU: "h200", NoAsyncScheduling: true, OutputOverhead: time.Nanosecond, OutputPerSeq: time.Nanosecond}
	step := resolved(t, llama70FP8H200).Profile.StepTime(engine.StepShape{Tokens: 4, Seqs: 4, Sampled: 4, ContextTokens: 4 * 300})
	for _, rate := range []float64{1, 3} {
		now := poisson(t, llama70FP8H200, rate, 200, 200, 20*time.Second, 120*time.Second)
		old := poisson(t, before, rate, 200, 200, 20*time.Second, 120*time.Second)
		added := time.Duration((now.medianTTFT - old.medianTTFT) * float64(time.Millisecond))
		t.Logf("%g req/s: TTFT p50 %.1f ms (%.1f ms without async scheduling and the output path), TPOT p50 %.1f ms; a decode step %v",
			rate, now.medianTTFT, old.medianTTFT, now.medianTPOT, step)
		if added < step*3/4 || added > step*3/2 {
			t.Errorf("%g req/s: the first-token path adds %v to the p50 TTFT, want about one decode step %v", rate, added, step)
		}
	}
}

// Over HTTP, tokens reach the stream only after the API server's output
// path: with 40 ms a step on the instant profile, the output path is the
// bottleneck, and each token leaves 40 ms after the one before, while the
// engine's own TTFT in /metrics stays short, as vLLM's does.
func TestOutputPathOverHTTP(t *testing.T) {
	const per = 40 * time.Millisecond
	s := start(t, Config{ProfileName: "instant", OutputOverhead: per, OutputPerSeq: time.Microsecond})
	r := streamCompletion(t, s.URL, map[string]any{"prompt": "one two three", "max_tokens": 3, "ignore_eos": true})
	if r.err != nil || r.tokens != 3 {
		t.Fatalf("%d tokens, %v", r.tokens, r.err)
	}
	if ttft := r.ttft(); ttft < per {
		t.Fatalf("TTFT %v, under the output path's %v", ttft, per)
	}
	if last := r.tokenTimes[2].Sub(r.sent); last < 3*per {
		t.Fatalf("the third token after %v, before three steps' outputs (%v)", last, 3*per)
	}
	fams := scrape(t, s.URL)
	h := fams["vllm:time_to_first_token_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 1 || h.GetSampleSum() >= per.Seconds() {
		t.Fatalf("engine TTFT %v s over %d samples; want one, under %v", h.GetSampleSum(), h.GetSampleCount(), per)
	}
}

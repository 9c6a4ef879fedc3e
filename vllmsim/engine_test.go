package vllmsim

import (
	"slices"
	"testing"
	"time"

	"github.com/llmslo/llmslo/internal/testkit"
	"github.com/llmslo/llmslo/vllmsim/engine"
)

func TestMain(m *testing.M) { goleakVerify(m) }

// The default profile on an idle engine: one 1024-token prompt, 256 output
// tokens. TTFT is one prefill step, TPOT the mean decode step.
func TestIdleTimingVirtual(t *testing.T) {
	e := defaultEngine(t, nil)
	v := newVRun(e)
	r := &vreq{prompt: wordsPrompt(1, 1024), out: 256}
	v.add(r)
	v.run(time.Hour)
	p := h100Llama3_8B
	wantTTFT := p.Duration(1024, 1, 0)
	if r.ttft() != wantTTFT {
		t.Fatalf("TTFT = %v, want exactly one prefill step %v", r.ttft(), wantTTFT)
	}
	var sum time.Duration
	for k := 1; k < 256; k++ {
		sum += p.Duration(1, 1, 1024+k-1)
	}
	if got, want := r.tpot(), sum/255; got != want {
		t.Fatalf("TPOT = %v, want %v", got, want)
	}
	within(t, "TTFT", r.ttft(), 70*time.Millisecond, 0.05)
	within(t, "TPOT", r.tpot(), 8*time.Millisecond, 0.05)
	t.Logf("idle 1024/256: TTFT %v, TPOT %v", r.ttft(), r.tpot())
}

func within(t *testing.T, what string, got, want time.Duration, frac float64) {
	t.Helper()
	if d := got - want; d < -time.Duration(frac*float64(want)) || d > time.Duration(frac*float64(want)) {
		t.Fatalf("%s = %v, want %v ± %.0f%%", what, got, want, frac*100)
	}
}

// A long prompt arriving while others decode is prefilled in chunks, so no
// decode waits longer than a step whose tokens fit the budget.
func TestChunkedPrefillKeepsDecodesMoving(t *testing.T) {
	const budget = 2048
	p := h100Llama3_8B
	worstGap := func(chunked bool) time.Duration {
		e := defaultEngine(t, func(c *engine.Config) {
			c.MaxNumBatchedTokens = budget
			if !chunked {
				c.MaxNumBatchedTokens = 32768
			}
		})
		v := newVRun(e)
		var decoders []*vreq
		for i := range 8 {
			r := &vreq{prompt: wordsPrompt(i, 128), out: 400}
			decoders = append(decoders, r)
			v.add(r)
		}
		v.add(&vreq{arrive: 500 * time.Millisecond, prompt: wordsPrompt(99, 16000), out: 4})
		v.run(time.Hour)
		var worst time.Duration
		for _, r := range decoders {
			for i := 1; i < len(r.tokenTimes); i++ {
				worst = max(worst, r.tokenTimes[i]-r.tokenTimes[i-1])
			}
		}
		return worst
	}
	chunked, unchunked := worstGap(true), worstGap(false)
	// The largest step a decode can sit in: the whole budget, every
	// sequence, their whole contexts.
	bound := p.Duration(budget, 9, 9*16000)
	if chunked > bound {
		t.Fatalf("worst decode gap with chunked prefill %v, more than one budget-sized step %v", chunked, bound)
	}
	if unchunked < 4*chunked {
		t.Fatalf("without chunking the worst gap %v should dwarf the chunked one %v", unchunked, chunked)
	}
	t.Logf("worst inter-token gap while a 16000-token prompt arrives: chunked %v, one-shot %v", chunked, unchunked)
}

func TestPrefixCacheHitsAndReset(t *testing.T) {
	e := defaultEngine(t, nil)
	v := newVRun(e)
	prompt := wordsPrompt(7, 2000)
	a := &vreq{prompt: prompt, out: 2}
	b := &vreq{arrive: time.Second, prompt: prompt, out: 2}
	v.add(a)
	v.add(b)
	v.run(2 * time.Second)
	st := e.Stats()
	wantHits := int64(1999 / 16 * 16)
	if st.PrefixHitTokens != wantHits || st.PrefixQueryTokens != 4000 {
		t.Fatalf("hits %d queries %d, want %d and 4000", st.PrefixHitTokens, st.PrefixQueryTokens, wantHits)
	}
	if b.ttft() >= a.ttft()/4 {
		t.Fatalf("second TTFT %v not well below the first %v", b.ttft(), a.ttft())
	}
	e.ResetPrefixCache()
	c := &vreq{arrive: 3 * time.Second, prompt: prompt, out: 2}
	v.add(c)
	v.run(4 * time.Second)
	if got := e.Stats().PrefixHitTokens; got != wantHits {
		t.Fatalf("hits after reset grew to %d", got)
	}
	if c.ttft() != a.ttft() {
		t.Fatalf("TTFT after reset %v, want the cold %v", c.ttft(), a.ttft())
	}
}

// When blocks run out, the most recently admitted running sequence is
// preempted and recomputed later; requests queue and latency suffers.
func TestKVExhaustionPreempts(t *testing.T) {
	run := func(blocks int) (*vrun, *engine.Engine) {
		e := defaultEngine(t, func(c *engine.Config) { c.NumBlocks = blocks })
		v := newVRun(e)
		for i := range 64 {
			v.add(&vreq{arrive: time.Duration(i) * time.Millisecond, prompt: wordsPrompt(i, 1000), out: 500})
		}
		v.run(time.Hour)
		return v, e
	}
	small, se := run(1200) // 19200 tokens for 64 × 1500
	large, le := run(30000)
	if se.Stats().Preemptions == 0 {
		t.Fatal("no preemptions with a KV cache a fifth of the demand")
	}
	if le.Stats().Preemptions != 0 {
		t.Fatalf("%d preemptions with room to spare", le.Stats().Preemptions)
	}
	if ws, wl := small.stepsWaiting(), large.stepsWaiting(); ws <= 10*wl {
		t.Fatalf("steps with requests waiting: %d with a small cache, %d with a large one", ws, wl)
	}
	if len(small.finished) != 64 {
		t.Fatalf("%d of 64 finished under preemption", len(small.finished))
	}
	e2e := func(v *vrun) time.Duration {
		var d []time.Duration
		for _, r := range v.finished {
			d = append(d, r.last-r.arrive)
		}
		return testkit.Median(d)
	}
	if e2e(small) < e2e(large)*13/10 {
		t.Fatalf("median E2E %v with preemption, %v without: preemption should hurt", e2e(small), e2e(large))
	}
	t.Logf("preemptions %d, steps with a queue %d vs %d, median E2E %v vs %v",
		se.Stats().Preemptions, small.stepsWaiting(), large.stepsWaiting(), e2e(small), e2e(large))
}

// V0 without chunked prefill: while a waiting prompt fits, no decode runs.
func TestPrefillFirst(t *testing.T) {
	for _, first := range []bool{false, true} {
		e := defaultEngine(t, func(c *engine.Config) {
			c.MaxNumBatchedTokens, c.DisableChunkedPrefill, c.PrefillFirst = 2048, true, first
		})
		e.Add(engine.NewSeq(0, wordsPrompt(0, 100), 50))
		e.Complete(e.Schedule()) // prompt 0 prefilled; it decodes from now on
		for i := 1; i <= 3; i++ {
			e.Add(engine.NewSeq(uint64(i), wordsPrompt(i, 1500), 10))
		}
		var shapes []int
		for range 4 {
			b := e.Schedule()
			shapes = append(shapes, len(b.Entries))
			e.Complete(b)
		}
		// Mixed (V1): each step decodes prompt 0 beside one 1,500-token
		// prompt. Prompts first (V0): three prompt-only steps, then decodes.
		want := []int{2, 3, 4, 4}
		if first {
			want = []int{1, 1, 1, 4}
		}
		if !slices.Equal(shapes, want) {
			t.Errorf("prefill first %v: sequences a step %v, want %v", first, shapes, want)
		}
	}
}

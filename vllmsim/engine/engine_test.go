package engine

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testEngine is an engine with vLLM serve's limits on an H100 and the
// hand-fit step profile, changed by mod.
func testEngine(tb testing.TB, mod func(*Config)) *Engine {
	c := Config{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, BlockSize: 16, NumBlocks: 30000,
		PrefixCaching: true, Profile: h100Llama3_8B}
	if mod != nil {
		mod(&c)
	}
	e, err := New(c)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// tokens is a prompt of n distinct token ids starting at base.
func tokens(base, n int) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(1000 + (base*7919+i)%100000)
	}
	return p
}

func TestSchedulerRespectsLimits(t *testing.T) {
	e := testEngine(t, func(c *Config) { c.MaxNumSeqs = 5; c.MaxNumBatchedTokens = 300 })
	for i := range 20 {
		e.Add(NewSeq(uint64(i), tokens(i, 100+i*10), 8))
	}
	steps := 0
	for !e.Idle() {
		b := e.Schedule()
		if len(b.Entries) > 5 {
			t.Fatalf("step %d has %d sequences, max_num_seqs is 5", steps, len(b.Entries))
		}
		if b.Tokens > 300 {
			t.Fatalf("step %d has %d tokens, max_num_batched_tokens is 300", steps, b.Tokens)
		}
		e.Complete(b)
		steps++
		if steps > 10000 {
			t.Fatal("engine did not drain")
		}
	}
	st := e.Stats()
	if st.FinishedSeqs != 20 || st.GeneratedTokens != 160 {
		t.Fatalf("finished %d generated %d, want 20 and 160", st.FinishedSeqs, st.GeneratedTokens)
	}
	if st.KVUsage != 0 {
		t.Fatalf("KV usage %v after draining, want 0", st.KVUsage)
	}
}

// Evicted blocks are the least recently freed: a prompt that was used
// recently survives pressure that evicts an older one.
func TestPrefixCacheLRU(t *testing.T) {
	e := testEngine(t, func(c *Config) { c.NumBlocks = 100 })
	run := func(p []int32) int64 {
		before := e.Stats().PrefixHitTokens
		s := NewSeq(0, p, 1)
		e.Add(s)
		for !e.Idle() {
			e.Complete(e.Schedule())
		}
		return e.Stats().PrefixHitTokens - before
	}
	old, recent, filler := tokens(1, 640), tokens(2, 640), tokens(3, 480)
	run(old)
	run(recent)
	run(filler) // needs 30 blocks: 20 free never-hashed, then evicts from old
	if h := run(recent); h != 624 {
		t.Fatalf("recent prompt hit %d tokens, want 624", h)
	}
	if h := run(old); h == 624 {
		t.Fatalf("old prompt fully hit; LRU should have evicted part of it")
	}
}

func TestPreemptionVictimIsLastAdmitted(t *testing.T) {
	e := testEngine(t, func(c *Config) { c.NumBlocks = 10; c.BlockSize = 4; c.PrefixCaching = false })
	a, b := NewSeq(1, tokens(1, 16), 20), NewSeq(2, tokens(2, 16), 20)
	e.Add(a)
	e.Add(b)
	for a.Generated() < 6 {
		e.Complete(e.Schedule())
	}
	if b.Preemptions() == 0 || a.Preemptions() != 0 {
		t.Fatalf("preemptions a=%d b=%d, want only b (the later admission)", a.Preemptions(), b.Preemptions())
	}
	if e.waiting[0] != b {
		t.Fatal("the victim is not at the front of the waiting queue")
	}
}

package vllmsim

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
	"github.com/llmslo/llmslo/vllmsim/wire"
)

// A KV cache of 300 blocks (4800 tokens) under 1024-in/256-out requests at
// 1 req/s preempts now and then; each victim, when it resumes, finds most
// of its own prompt blocks still cached. Those hits must not count as
// prefix-cache hits: every prompt is unique, so the exported rate is 0.
func TestPreemptedLookupsAreNotPrefixHits(t *testing.T) {
	e := defaultEngine(t, func(c *engine.Config) { c.NumBlocks = 300 })
	v := newVRun(e)
	rng := rand.New(rand.NewPCG(1, 7))
	at := time.Duration(0)
	for i := range 120 { // Poisson arrivals at 1 req/s
		at += time.Duration(-math.Log(1-rng.Float64()) * float64(time.Second))
		v.add(&vreq{arrive: at, prompt: wordsPrompt(i+1, 1024), out: 256})
	}
	v.run(time.Hour)
	st := e.Stats()
	if len(v.finished) != 120 {
		t.Fatalf("%d of 120 finished", len(v.finished))
	}
	if st.Preemptions < 5 {
		t.Fatalf("%d preemptions: the scenario needs some", st.Preemptions)
	}
	if st.PrefixQueryTokens != 120*1024 || st.PrefixHitTokens != 0 {
		t.Fatalf("new requests: %d queried, %d hit; want 122880 and 0", st.PrefixQueryTokens, st.PrefixHitTokens)
	}
	// The recomputes did re-read their own blocks: counted together, they
	// would have shown a hit rate of about 10%.
	mixed := float64(st.PreemptedPrefixHitTokens) / float64(st.PrefixQueryTokens+st.PreemptedPrefixQueryTokens)
	if mixed < 0.05 {
		t.Fatalf("preempted lookups hit %d of %d tokens: the scenario no longer shows the inflation", st.PreemptedPrefixHitTokens, st.PreemptedPrefixQueryTokens)
	}
	t.Logf("%d preemptions; preempted lookups hit %d tokens, a %.1f%% rate had they been counted", st.Preemptions, st.PreemptedPrefixHitTokens, 100*mixed)
}

// A sequence's cached tokens are fixed at its first scheduling: the hits of
// its recompute after a preemption do not change them.
func TestCachedTokensFixedAtFirstScheduling(t *testing.T) {
	e := defaultEngine(t, func(c *engine.Config) { c.NumBlocks = 20; c.BlockSize = 4 })
	a, b := engine.NewSeq(1, wordsPrompt(1, 32), 40), engine.NewSeq(2, wordsPrompt(2, 32), 40)
	e.Add(a)
	e.Add(b)
	for !e.Idle() {
		e.Complete(e.Schedule())
	}
	st := e.Stats()
	if b.Preemptions() == 0 || st.PreemptedPrefixHitTokens == 0 {
		t.Fatalf("b preempted %d times, preempted hits %d: the test needs a recompute that hits", b.Preemptions(), st.PreemptedPrefixHitTokens)
	}
	if a.CachedTokens() != 0 || b.CachedTokens() != 0 {
		t.Fatalf("cached tokens a=%d b=%d, want 0 and 0 (fixed when first scheduled)", a.CachedTokens(), b.CachedTokens())
	}
	c := engine.NewSeq(3, wordsPrompt(2, 32), 1) // b's prompt, the last one run: 7 full blocks hit (the last token is computed)
	e.Add(c)
	for !e.Idle() {
		e.Complete(e.Schedule())
	}
	if c.CachedTokens() != 28 {
		t.Fatalf("repeated prompt: %d cached tokens, want 28", c.CachedTokens())
	}
}

// Over HTTP: unique prompts on a small cache preempt, and /metrics shows no
// prefix hits; a repeated identical prompt does show them.
func TestExportedPrefixHitsUnderPreemption(t *testing.T) {
	prof := engine.StepProfile{Name: "kv", Fixed: time.Millisecond, PerToken: 2 * time.Microsecond}
	s := start(t, Config{Profile: prof, NumGPUBlocks: 200, MaxModelLen: 1024})
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Go(func() {
			r := streamCompletion(t, s.URL, map[string]any{"prompt": textPrompt("u"+string(rune('A'+i)), 300),
				"max_tokens": 200, "ignore_eos": true})
			if r.err != nil || r.tokens != 200 {
				t.Errorf("request %d: %d tokens, %v", i, r.tokens, r.err)
			}
		})
	}
	wg.Wait()
	fams := scrape(t, s.URL)
	st := s.Stats()
	if metricValue(fams, "vllm:num_preemptions_total") == 0 || st.PreemptedPrefixQueryTokens == 0 {
		t.Fatalf("no preemptions (%v) or no resumed lookups (%d): the test needs them",
			metricValue(fams, "vllm:num_preemptions_total"), st.PreemptedPrefixQueryTokens)
	}
	if q, h := metricValue(fams, "vllm:prefix_cache_queries_total"), metricValue(fams, "vllm:prefix_cache_hits_total"); q != 24*300 || h != 0 {
		t.Fatalf("exported prefix cache: %v queried, %v hit; want %d and 0 (preempted hits: %d)", q, h, 24*300, st.PreemptedPrefixHitTokens)
	}

	same := map[string]any{"prompt": textPrompt("same", 100), "max_tokens": 2, "ignore_eos": true}
	for range 2 {
		if r := streamCompletion(t, s.URL, same); r.tokens != 2 {
			t.Fatalf("repeated prompt: %+v", r)
		}
	}
	if h := metricValue(scrape(t, s.URL), "vllm:prefix_cache_hits_total"); h != 96 {
		t.Fatalf("hits after a repeated 100-token prompt: %v, want 96 (6 full blocks)", h)
	}
}

// cached_tokens is in the usage only with --enable-prompt-tokens-details,
// streamed and whole, and counts the repeated prompt's cached blocks.
func TestPromptTokensDetails(t *testing.T) {
	prompt := textPrompt("d", 100)
	for _, on := range []bool{false, true} {
		s := start(t, Config{ProfileName: "instant", EnablePromptTokensDetails: on})
		var streamed []string
		for range 2 {
			status, raw, err := rawPost(t, s.URL+"/v1/completions", map[string]any{"prompt": prompt, "max_tokens": 3,
				"ignore_eos": true, "stream": true, "stream_options": map[string]any{"include_usage": true}})
			if status != 200 || err != nil {
				t.Fatalf("status %d, %v", status, err)
			}
			ev := events(raw)
			streamed = append(streamed, ev[len(ev)-2])
		}
		_, whole, _ := rawPost(t, s.URL+"/v1/chat/completions", map[string]any{"messages": []map[string]string{{"role": "user", "content": prompt}},
			"max_tokens": 3})
		if !on {
			for _, u := range append(streamed, whole) {
				if strings.Contains(u, "prompt_tokens_details") {
					t.Fatalf("details without the flag: %s", u)
				}
			}
			continue
		}
		for i, want := range []string{`"usage":{"prompt_tokens":100,"total_tokens":103,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":0}}}`,
			`"usage":{"prompt_tokens":100,"total_tokens":103,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":96}}}`} {
			if !strings.HasSuffix(streamed[i], want) {
				t.Fatalf("request %d usage chunk %s, want it to end %s", i, streamed[i], want)
			}
		}
		var resp struct {
			Usage wire.Usage `json:"usage"`
		}
		if err := json.Unmarshal([]byte(whole), &resp); err != nil || resp.Usage.PromptTokensDetails == nil {
			t.Fatalf("chat usage %s: %v", whole, err)
		}
		// The chat prompt is another token sequence: nothing of it is cached.
		if resp.Usage.PromptTokensDetails.CachedTokens != 0 || resp.Usage.PromptTokens != 106 {
			t.Fatalf("chat usage %+v, want 106 prompt tokens, 0 cached", resp.Usage)
		}
	}
}

package vllmsim

import (
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/llmslo/llmslo/internal/testkit"
	"github.com/llmslo/llmslo/vllmsim/engine"
)

// Idle timing over real HTTP: 1024 in / 256 out with the h100-llama3-8b
// profile, whose steps are long enough for the host's timer and HTTP costs
// to stay under 5% of them, gives its TTFT ≈ 70 ms and TPOT ≈ 8 ms within
// 5% (TTFT at or above the model, see below): TPOT the median of three
// requests, TTFT the median of nine.
// (The virtual-time core is checked exactly in TestIdleTimingVirtual.)
func TestIdleTimingOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("about 7 s of real time")
	}
	s := start(t, Config{ProfileName: "h100-llama3-8b"})
	var ttfts, tpots []time.Duration
	for i := range 3 {
		r := streamCompletion(t, s.URL, map[string]any{"prompt": textPrompt("idle"+string(rune('a'+i)), 1024),
			"max_tokens": 256, "ignore_eos": true})
		if r.err != nil || r.tokens != 256 {
			t.Fatalf("request %d: %d tokens, %v", i, r.tokens, r.err)
		}
		ttfts, tpots = append(ttfts, r.ttft()), append(tpots, r.tpot())
	}
	// More TTFT samples are cheap (one token each); a single late timer
	// wake-up on a busy host then cannot move the median.
	for i := range 6 {
		r := streamCompletion(t, s.URL, map[string]any{"prompt": textPrompt("first"+string(rune('a'+i)), 1024), "max_tokens": 1})
		if r.err != nil || r.tokens != 1 {
			t.Fatalf("request %d: %d tokens, %v", i, r.tokens, r.err)
		}
		ttfts = append(ttfts, r.ttft())
	}
	ttft, tpot := testkit.Median(ttfts), testkit.Median(tpots)
	t.Logf("over HTTP: TTFT %v (model 69.35ms), TPOT %v (model 8.016ms); all TTFT %v, TPOT %v", ttft, tpot, ttfts, tpots)
	// TTFT over HTTP is the model's 69.35 ms plus the way there: the HTTP
	// path and tokenizing a 1024-token text prompt, a few ms on a busy
	// machine (70.9 to 75.2 ms seen in one CI run). It never beats the
	// model and stays within 10% of it; the virtual-time core is checked
	// exactly in TestIdleTimingVirtual.
	model := 69350 * time.Microsecond
	if ttft < model-time.Millisecond || ttft > model+model/10 {
		t.Errorf("TTFT = %v, want the model's %v to 10%% above it", ttft, model)
	}
	within(t, "TPOT", tpot, 8*time.Millisecond, 0.05)
}

func TestPrefixCachingOverHTTP(t *testing.T) {
	s := start(t, Config{DevMode: true})
	prompt := textPrompt("shared", 2048)
	ttft := func() time.Duration {
		r := streamCompletion(t, s.URL, map[string]any{"prompt": prompt, "max_tokens": 1})
		if r.err != nil || r.tokens != 1 {
			t.Fatalf("%+v", r)
		}
		return r.ttft()
	}
	hits := func() float64 { return metricValue(scrape(t, s.URL), "vllm:prefix_cache_hits_total") }
	cold := ttft()
	if h := hits(); h != 0 {
		t.Fatalf("%v hits on a cold cache", h)
	}
	warm := ttft()
	if h := hits(); h != 2032 {
		t.Fatalf("%v hit tokens on the repeat, want 2032 (127 full blocks of 16)", h)
	}
	if q := metricValue(scrape(t, s.URL), "vllm:prefix_cache_queries_total"); q != 4096 {
		t.Fatalf("%v query tokens, want 4096", q)
	}
	if warm > cold/3 {
		t.Fatalf("warm TTFT %v, cold %v: the cache should cut it by far", warm, cold)
	}
	if st, _ := postJSON(t, s.URL+"/reset_prefix_cache", ""); st != 200 {
		t.Fatalf("reset %d", st)
	}
	again := ttft()
	if h := hits(); h != 2032 {
		t.Fatalf("hits grew to %v after the reset", h)
	}
	if again < cold*8/10 {
		t.Fatalf("TTFT after reset %v, cold %v: should be cold again", again, cold)
	}
	t.Logf("TTFT cold %v, warm %v, after reset %v", cold, warm, again)
}

// A KV cache too small for the load preempts, queues and slows requests.
func TestKVExhaustionOverHTTP(t *testing.T) {
	prof := engine.StepProfile{Name: "kv", Fixed: time.Millisecond, PerToken: 2 * time.Microsecond}
	run := func(blocks int) (e2e time.Duration, preempt, maxWaiting float64) {
		s := start(t, Config{Profile: prof, NumGPUBlocks: blocks, MaxModelLen: 1024})
		var wg sync.WaitGroup
		stop := make(chan struct{})
		var peak float64
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
					peak = max(peak, metricValue(scrape(t, s.URL), "vllm:num_requests_waiting"))
				}
			}
		})
		var mu sync.Mutex
		var lat []time.Duration
		var reqs sync.WaitGroup
		for i := range 32 {
			reqs.Go(func() {
				r := streamCompletion(t, s.URL, map[string]any{"prompt": textPrompt("kv"+string(rune('A'+i)), 300),
					"max_tokens": 200, "ignore_eos": true})
				if r.err != nil || r.tokens != 200 {
					t.Errorf("request %d: %d tokens, %v", i, r.tokens, r.err)
					return
				}
				mu.Lock()
				lat = append(lat, r.tokenTimes[len(r.tokenTimes)-1].Sub(r.sent))
				mu.Unlock()
			})
		}
		reqs.Wait()
		close(stop)
		wg.Wait()
		if len(lat) == 0 {
			t.FailNow()
		}
		return testkit.Median(lat), metricValue(scrape(t, s.URL), "vllm:num_preemptions_total"), peak
	}
	smallE2E, smallPre, smallWait := run(200) // 3200 tokens for 32 × 500
	bigE2E, bigPre, bigWait := run(2000)
	t.Logf("small cache: median E2E %v, %v preemptions, peak waiting %v; large: %v, %v, %v",
		smallE2E, smallPre, smallWait, bigE2E, bigPre, bigWait)
	if smallPre == 0 || bigPre != 0 {
		t.Fatalf("preemptions: %v with a small cache, %v with a large one", smallPre, bigPre)
	}
	if smallWait <= bigWait {
		t.Fatalf("peak waiting %v with a small cache, %v with a large one", smallWait, bigWait)
	}
	if smallE2E < bigE2E*12/10 {
		t.Fatalf("median E2E %v with a small cache vs %v: exhaustion should hurt", smallE2E, bigE2E)
	}
}

// The closed-versus-open lesson over HTTP, with a profile whose capacity is
// known: steps of 4 ms, at most 4 sequences, 20 output tokens, so a request
// takes about 84 ms of engine time and the server serves about 48 req/s.
func TestClosedVersusOpenOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("about 6 s of real time")
	}
	prof := engine.StepProfile{Name: "knee", Fixed: 4 * time.Millisecond}
	cfg := Config{Profile: prof, MaxNumSeqs: 4}
	body := func(i int) map[string]any {
		return map[string]any{"prompt": textPrompt("cv"+string(rune('a'+i%26))+string(rune('a'+i/26%26)), 8), "max_tokens": 20, "ignore_eos": true}
	}
	type sample struct {
		at   time.Duration
		ttft time.Duration
	}
	// Closed loop: 16 clients for 1.5 s.
	s := start(t, cfg)
	var mu sync.Mutex
	var closed []sample
	begin := time.Now()
	var wg sync.WaitGroup
	for c := range 16 {
		wg.Go(func() {
			for i := 0; time.Since(begin) < 1500*time.Millisecond; i++ {
				r := streamCompletion(t, s.URL, body(c*1000+i))
				if r.err != nil || r.tokens != 20 {
					t.Errorf("closed loop: %+v", r)
					return
				}
				mu.Lock()
				closed = append(closed, sample{r.sent.Sub(begin), r.ttft()})
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	medianIn := func(ss []sample, from, to time.Duration) time.Duration {
		var d []time.Duration
		for _, x := range ss {
			if x.at >= from && x.at < to {
				d = append(d, x.ttft)
			}
		}
		if len(d) == 0 {
			t.Fatalf("no samples in [%v, %v)", from, to)
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	c1, c2 := medianIn(closed, 300*time.Millisecond, 800*time.Millisecond), medianIn(closed, 900*time.Millisecond, 1400*time.Millisecond)
	if c2 > 2*c1 || c2 > 600*time.Millisecond {
		t.Fatalf("closed loop of 16: median TTFT %v then %v; should be steady and bounded", c1, c2)
	}

	// Open loop at 100 req/s (about twice capacity) for 2 s: requests are
	// sent on schedule whatever the server does, and the wait grows.
	s2 := start(t, cfg)
	var open []sample
	begin = time.Now()
	for i := range 200 {
		at := time.Duration(i) * 10 * time.Millisecond
		time.Sleep(time.Until(begin.Add(at)))
		wg.Go(func() {
			r := streamCompletion(t, s2.URL, body(i))
			if r.err != nil || r.tokens != 20 {
				t.Errorf("open loop: %+v", r)
				return
			}
			mu.Lock()
			open = append(open, sample{at, r.tokenTimes[0].Sub(begin.Add(at))})
			mu.Unlock()
		})
	}
	wg.Wait()
	o1, o2, o3 := medianIn(open, 0, 500*time.Millisecond), medianIn(open, 750*time.Millisecond, 1250*time.Millisecond), medianIn(open, 1500*time.Millisecond, 2000*time.Millisecond)
	t.Logf("closed loop (16 clients): median TTFT %v then %v; open loop at 100 req/s: %v, %v, %v", c1, c2, o1, o2, o3)
	if !(o2 > o1+150*time.Millisecond && o3 > o2+150*time.Millisecond) {
		t.Fatalf("open loop above capacity: median TTFT %v, %v, %v over the run; the wait should grow", o1, o2, o3)
	}
}

// Chunked prefill over HTTP: a 15,000-token prompt arriving while four
// streams decode is prefilled 2,048 tokens a step, so no decode waits longer
// than one budget-sized step (about 131 ms), where prefilling it whole would
// stall them for about 900 ms.
func TestChunkedPrefillOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("about 3 s of real time")
	}
	const budget = 2048
	s := start(t, Config{MaxNumBatchedTokens: budget, ProfileName: "h100-llama3-8b"})
	var wg sync.WaitGroup
	results := make([]streamResult, 4)
	for i := range results {
		wg.Go(func() {
			results[i] = streamCompletion(t, s.URL, map[string]any{"prompt": textPrompt("dec"+string(rune('a'+i)), 32),
				"max_tokens": 300, "ignore_eos": true})
		})
	}
	time.Sleep(300 * time.Millisecond)
	long := streamCompletion(t, s.URL, map[string]any{"prompt": textPrompt("long", 15000), "max_tokens": 1})
	wg.Wait()
	if long.err != nil || long.tokens != 1 {
		t.Fatalf("long prompt: %+v", long)
	}
	var worst time.Duration
	for i, r := range results {
		if r.err != nil || r.tokens != 300 {
			t.Fatalf("decoder %d: %d tokens, %v", i, r.tokens, r.err)
		}
		for k := 1; k < len(r.tokenTimes); k++ {
			worst = max(worst, r.tokenTimes[k].Sub(r.tokenTimes[k-1]))
		}
	}
	bound := h100Llama3_8B.Duration(budget, 5, 5*16000)
	t.Logf("long prompt TTFT %v; worst decode gap %v (one budget-sized step is at most %v)", long.ttft(), worst, bound)
	if worst < 100*time.Millisecond {
		t.Fatalf("worst gap %v: the long prompt never shared a step with the decodes", worst)
	}
	if worst > bound+30*time.Millisecond {
		t.Fatalf("worst decode gap %v, more than one budget-sized step (%v)", worst, bound)
	}
}

package vllmsim

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

// N requests arriving at once are taken in one after another: the k-th
// reaches the engine at k × its cost; one arriving after the intake went
// idle waits only for its own.
func TestFrontendIsSerial(t *testing.T) {
	f := engine.Frontend{Overhead: 2 * time.Millisecond, PerToken: time.Microsecond}
	for k := 1; k <= 4; k++ {
		if got, want := f.Admit(0, 500), time.Duration(k)*2500*time.Microsecond; got != want {
			t.Fatalf("request %d reaches the engine at %v, want %v", k, got, want)
		}
	}
	if got := f.Admit(time.Second, 0); got != time.Second+2*time.Millisecond {
		t.Fatalf("a request after an idle spell reaches the engine at %v, want 1.002s", got)
	}
}

func TestFrontendDefaults(t *testing.T) {
	for _, c := range []struct {
		name               string
		cfg                Config
		overhead, perToken time.Duration
	}{
		{"nothing named: the hand-fit profile, whose fit includes it", Config{}, 0, 0},
		{"a named profile", Config{ProfileName: "h200-llama3-8b"}, 0, 0},
		{"a named profile, costs given", Config{ProfileName: "instant", FrontendOverhead: time.Millisecond}, time.Millisecond, 0},
		{"the roofline: vLLM V1", Config{GPU: "h100"}, DefaultFrontendOverhead, DefaultFrontendPerToken},
		{"V0", Config{GPU: "h100", EngineV0: true}, V0FrontendOverhead, DefaultFrontendPerToken},
		{"one cost given", Config{GPU: "h100", FrontendPerToken: 3 * time.Microsecond}, DefaultFrontendOverhead, 3 * time.Microsecond},
		{"offline", Config{GPU: "h100", NoFrontend: true, FrontendOverhead: time.Millisecond}, 0, 0},
	} {
		r := resolved(t, c.cfg)
		if r.FrontendOverhead != c.overhead || r.FrontendPerToken != c.perToken {
			t.Errorf("%s: %v a request, %v a token; want %v and %v", c.name, r.FrontendOverhead, r.FrontendPerToken, c.overhead, c.perToken)
		}
	}
	if _, err := (Config{FrontendOverhead: -time.Millisecond}).withDefaults(); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("a negative overhead: %v", err)
	}
}

// An idle request's TTFT grows by exactly the API server's time.
func TestFrontendAddsToIdleTTFT(t *testing.T) {
	ttft := func(cfg Config) time.Duration {
		v := configRun(t, cfg)
		r := &vreq{prompt: wordsPrompt(1, 1024), out: 2}
		v.add(r)
		v.run(time.Hour)
		return r.ttft()
	}
	bare := ttft(Config{GPU: "h100", NoFrontend: true})
	// In, 0.3 ms + 1024 × 1 µs; out, 0.3 ms for the step's outputs and
	// 20 µs for the one token.
	if got, want := ttft(Config{GPU: "h100"})-bare, 300*time.Microsecond+1024*time.Microsecond+320*time.Microsecond; got != want {
		t.Fatalf("V1's API server adds %v to TTFT, want 0.3 ms + 1024 × 1 µs + 0.32 ms = %v", got, want)
	}
	bareV0 := ttft(Config{GPU: "h100", EngineV0: true, NoFrontend: true})
	if got, want := ttft(Config{GPU: "h100", EngineV0: true})-bareV0, 2400*time.Microsecond+1024*time.Microsecond; got != want {
		t.Fatalf("V0's API server adds %v, want %v", got, want)
	}
}

// A burst of 4 requests of 100 tokens (1.1 ms each to take in): V1's
// engine starts on the first at 1.1 ms, while the others trickle in; V0's
// waits for all four and runs them in one step at 4.4 ms.
func TestFrontendHoldsV0Engine(t *testing.T) {
	firsts := func(v0 bool) []time.Duration {
		v := configRun(t, Config{GPU: "h100", EngineV0: v0, FrontendOverhead: time.Millisecond})
		var rs []*vreq
		for i := range 4 {
			r := &vreq{prompt: wordsPrompt(i, 100), out: 1}
			rs = append(rs, r)
			v.add(r)
		}
		v.run(time.Hour)
		var out []time.Duration
		for _, r := range rs {
			out = append(out, r.first)
		}
		return out
	}
	const each = 1100 * time.Microsecond
	one := resolved(t, Config{GPU: "h100"}).Profile.StepTime(engine.StepShape{Tokens: 100, Seqs: 1, Sampled: 1, PrefillPairs: 100 * 101 / 2})
	four := resolved(t, Config{GPU: "h100", EngineV0: true}).Profile.StepTime(engine.StepShape{Tokens: 400, Seqs: 4, Sampled: 4, PrefillPairs: 4 * 100 * 101 / 2})
	v1 := firsts(false)
	if out := DefaultOutputOverhead + DefaultOutputPerSeq; v1[0] != each+one+out {
		t.Errorf("V1: the first request's first token at %v, want 1.1 ms + one 100-token step %v + its output %v", v1[0], one, out)
	}
	v0 := firsts(true)
	for i, f := range v0 {
		if f != 4*each+four {
			t.Errorf("V0: request %d's first token at %v, want 4.4 ms + one step of all four %v", i, f, 4*each+four)
		}
	}
	t.Logf("first tokens: V1 %v, V0 %v", v1, v0)
}

// Over HTTP, three requests sent at once are taken in one after another
// (60 ms each): their first tokens come about 60, 120 and 180 ms after
// they were sent. With the V0 engine, none comes before all three are in.
func TestFrontendOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("real time")
	}
	const cost = 60 * time.Millisecond
	for _, v0 := range []bool{false, true} {
		s := start(t, Config{ProfileName: "instant", FrontendOverhead: cost, EngineV0: v0})
		var mu sync.Mutex
		var ttfts []time.Duration
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := streamCompletion(t, s.URL, map[string]any{"prompt": textPrompt("fe"+string(rune('a'+i)), 8), "max_tokens": 1})
				if r.err != nil || r.tokens != 1 {
					t.Errorf("request %d: %d tokens, %v", i, r.tokens, r.err)
					return
				}
				mu.Lock()
				ttfts = append(ttfts, r.ttft())
				mu.Unlock()
			}()
		}
		wg.Wait()
		slices.Sort(ttfts)
		if len(ttfts) != 3 {
			t.Fatalf("V0 %v: %d answers", v0, len(ttfts))
		}
		for k, got := range ttfts {
			want := time.Duration(k+1) * cost
			if v0 {
				want = 3 * cost
			}
			// Timers never fire early; the slack is for a busy host and the
			// three sends not leaving at the same instant.
			if got < want-10*time.Millisecond || got > want+50*time.Millisecond {
				t.Errorf("V0 %v: TTFTs %v; the %d-th should be about %v", v0, ttfts, k+1, want)
			}
		}
		t.Logf("V0 %v: TTFTs %v", v0, ttfts)
	}
}

// V0's steps cost V0SeqCPU a sequence where V1's cost SeqCPU; nothing else
// in the step differs.
func TestV0StepsCostMoreASequence(t *testing.T) {
	v1 := resolved(t, Config{GPU: "h100"}).Profile
	v0 := resolved(t, Config{GPU: "h100", EngineV0: true}).Profile
	for _, seqs := range []int{1, 64, 256} {
		s := engine.StepShape{Tokens: seqs, Seqs: seqs, Sampled: seqs, ContextTokens: seqs * 300}
		if got, want := v0.StepTime(s)-v1.StepTime(s), time.Duration(seqs)*(engine.V0SeqCPU-engine.CalibratedEfficiency.SeqCPU); got != want {
			t.Errorf("%d sequences: V0's step is %v longer, want %v", seqs, got, want)
		}
	}
	lines, err := Describe(Config{GPU: "h100", EngineV0: true})
	if err != nil {
		t.Fatal(err)
	}
	if all := strings.Join(lines, "\n"); !strings.Contains(all, engine.V0SeqCPU.String()+" of CPU a sequence") {
		t.Errorf("the start-up log does not give V0's CPU a sequence:\n%s", all)
	}
	named := resolved(t, Config{ProfileName: "h100-llama3-8b", EngineV0: true}).Profile
	if named.Roofline != nil || named.PerSequence != resolved(t, Config{ProfileName: "h100-llama3-8b"}).Profile.PerSequence {
		t.Error("a hand-fit profile changed under --engine-v0")
	}
}

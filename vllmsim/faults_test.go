package vllmsim

import (
	"errors"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSlowStartAndInjectedErrors(t *testing.T) {
	s := start(t, Config{ProfileName: "instant", StartupBehavior: Startup503, Faults: Faults{StartupDelay: 300 * time.Millisecond}})
	resp, err := http.Get(s.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Fatalf("/health %d during startup, want 503", resp.StatusCode)
	}
	if st, _ := postJSON(t, s.URL+"/v1/completions", map[string]any{"prompt": "a"}); st != 503 {
		t.Fatalf("completion %d during startup, want 503", st)
	}
	time.Sleep(350 * time.Millisecond)
	resp, _ = http.Get(s.URL + "/health")
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/health %d after startup", resp.StatusCode)
	}

	count := func(seed int64) (int, []bool) {
		f := start(t, Config{ProfileName: "instant", Seed: seed, Faults: Faults{ErrorRate: 0.3, ErrorStatus: 429}})
		n, pattern := 0, []bool{}
		for range 100 {
			st, raw := postJSON(t, f.URL+"/v1/completions", map[string]any{"prompt": "a b", "max_tokens": 1})
			failed := st == 429
			if failed {
				n++
				if !strings.Contains(string(raw), `"type":"Too Many Requests"`) {
					t.Fatalf("429 body %s", raw)
				}
			} else if st != 200 {
				t.Fatalf("status %d", st)
			}
			pattern = append(pattern, failed)
		}
		return n, pattern
	}
	n1, p1 := count(7)
	n2, p2 := count(7)
	if n1 < 15 || n1 > 45 {
		t.Fatalf("%d of 100 failed at an error rate of 30%%", n1)
	}
	if n1 != n2 || strings.Join(boolStrings(p1), "") != strings.Join(boolStrings(p2), "") {
		t.Fatal("the same seed gave different faults")
	}
}

func boolStrings(b []bool) []string {
	s := make([]string, len(b))
	for i, v := range b {
		s[i] = "0"
		if v {
			s[i] = "1"
		}
	}
	return s
}

func TestDisconnectAndStall(t *testing.T) {
	s := start(t, Config{ProfileName: "instant", Faults: Faults{DisconnectRate: 1, DisconnectAfter: 3}})
	r := streamCompletion(t, s.URL, map[string]any{"prompt": "a b c", "max_tokens": 10, "ignore_eos": true})
	if r.err == nil || r.tokens != 3 || r.done {
		t.Fatalf("disconnect after 3: got %d tokens, done %v, err %v", r.tokens, r.done, r.err)
	}
	waitFor(t, func() bool { return metricValue(scrape(t, s.URL), "vllm:num_requests_running") == 0 })

	s2 := start(t, Config{Profile: fastProfile, Faults: Faults{StallRate: 1, StallAfter: 2, StallFor: 300 * time.Millisecond}})
	r = streamCompletion(t, s2.URL, map[string]any{"prompt": "a b c", "max_tokens": 6, "ignore_eos": true})
	if r.err != nil || r.tokens != 6 || !r.done {
		t.Fatalf("stall: %+v", r)
	}
	if gap := r.tokenTimes[2].Sub(r.tokenTimes[1]); gap < 300*time.Millisecond {
		t.Fatalf("gap after token 2 is %v, want the 300ms stall", gap)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 5s")
}

// By default, as today's vLLM, the server accepts no connection until it
// is ready; then it serves on the same address.
func TestStartupRefusesConnectionsUntilReady(t *testing.T) {
	s := start(t, Config{ProfileName: "instant", Faults: Faults{StartupDelay: 300 * time.Millisecond}})
	resp, err := http.Get(s.URL + "/health")
	if err == nil {
		resp.Body.Close()
		t.Fatalf("/health answered %d while loading; want the connection refused", resp.StatusCode)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("while loading: %v, want connection refused", err)
	}
	waitFor(t, func() bool {
		resp, err := http.Get(s.URL + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	if st, raw := postJSON(t, s.URL+"/v1/completions", map[string]any{"prompt": "a", "max_tokens": 1}); st != 200 {
		t.Fatalf("after loading: %d %s", st, raw)
	}
}

package vllmsim

import (
	"net/http"
	"testing"
)

// /reset_prefix_cache as vLLM serves it: a 404 outside dev mode; in dev
// mode 200 every time, but a reset while requests run is refused unless
// the client asks to preempt them (reset_running_requests=true), and the
// preempted requests still finish.
func TestResetPrefixCacheRefusedWhileRunning(t *testing.T) {
	if st, _ := postJSON(t, start(t, Config{ProfileName: "instant"}).URL+"/reset_prefix_cache", ""); st != http.StatusNotFound {
		t.Fatalf("outside dev mode: %d, want 404", st)
	}
	srv := start(t, Config{Profile: slowSteps, DevMode: true})
	done := make(chan int, 1)
	go func() {
		st, _ := postJSON(t, srv.URL+"/v1/completions", map[string]any{"prompt": textPrompt("r", 40), "max_tokens": 4, "ignore_eos": true})
		done <- st
	}()
	waitFor(t, func() bool { return srv.Stats().Running == 1 })
	if st, _ := postJSON(t, srv.URL+"/reset_prefix_cache", ""); st != http.StatusOK {
		t.Fatalf("reset while running: %d, want 200 all the same", st)
	}
	if s := srv.Stats(); s.PrefixCacheResets != 0 || s.PrefixCacheResetsRefused != 1 {
		t.Fatalf("reset while running: %d done, %d refused; want 0 and 1", s.PrefixCacheResets, s.PrefixCacheResetsRefused)
	}
	if st, _ := postJSON(t, srv.URL+"/reset_prefix_cache?reset_running_requests=true", ""); st != http.StatusOK {
		t.Fatalf("reset preempting: %d", st)
	}
	if s := srv.Stats(); s.PrefixCacheResets != 1 || s.Preemptions != 1 {
		t.Fatalf("reset preempting: %d done, %d preemptions; want 1 and 1", s.PrefixCacheResets, s.Preemptions)
	}
	if st := <-done; st != http.StatusOK {
		t.Fatalf("the preempted request: %d", st)
	}
	if st, _ := postJSON(t, srv.URL+"/reset_prefix_cache", ""); st != http.StatusOK || srv.Stats().PrefixCacheResets != 2 {
		t.Fatalf("reset when idle: %d, %d done; want 200 and 2", st, srv.Stats().PrefixCacheResets)
	}
}

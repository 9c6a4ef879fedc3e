package vllmsim

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
	"github.com/llmslo/llmslo/vllmsim/wire"
)

// A server with --max-num-queued-reqs 2 whose requests last a while takes
// two and refuses the third with vLLM's 503, counts the refusal by reason,
// and takes requests again once the first two are done.
func TestAdmissionCapsRequestsInFlight(t *testing.T) {
	srv := start(t, Config{Profile: slowSteps, MaxNumQueuedReqs: 2})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if st, raw := postJSON(t, srv.URL+"/v1/completions", map[string]any{"prompt": "a b", "max_tokens": 2, "ignore_eos": true}); st != 200 {
				t.Errorf("admitted request: %d %s", st, raw)
			}
		}()
	}
	waitFor(t, func() bool { s := srv.Stats(); return s.Running+s.Waiting == 2 })
	st, raw := postJSON(t, srv.URL+"/v1/completions", map[string]any{"prompt": "a b", "max_tokens": 2})
	if st != http.StatusServiceUnavailable {
		t.Fatalf("third request: %d %s", st, raw)
	}
	want := `{"error":{"message":"` + MsgQueueOverflow + `","type":"Service Unavailable","param":null,"code":503}}`
	if string(raw) != want {
		t.Fatalf("body\n%s\nwant\n%s", raw, want)
	}
	wg.Wait()
	if got := scrapeValue(t, srv.URL, "vllm:admission_rejections_total", "reason", RejectQueuedReqs); got != 1 {
		t.Fatalf("rejections %v, want 1", got)
	}
	if st, raw := postJSON(t, srv.URL+"/v1/completions", map[string]any{"prompt": "a b", "max_tokens": 1}); st != 200 {
		t.Fatalf("after the first two finished: %d %s", st, raw)
	}
}

// The token cap counts whole prompts still in prefill: a 64-token prompt
// held in prefill fills a cap of 64, and the next is refused with the
// backlog message; once its first token came, the backlog is empty again.
func TestAdmissionCapsPrefillTokens(t *testing.T) {
	srv := start(t, Config{Profile: slowSteps, MaxNumQueuedTokens: 64})
	prompt := make([]int, 64)
	for i := range prompt {
		prompt[i] = 100 + i
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		postJSON(t, srv.URL+"/v1/completions", map[string]any{"prompt": prompt, "max_tokens": 1})
	}()
	waitFor(t, func() bool { s := srv.Stats(); return s.Running+s.Waiting == 1 })
	st, raw := postJSON(t, srv.URL+"/v1/completions", map[string]any{"prompt": "a b", "max_tokens": 1})
	var body struct {
		Error wire.ErrorInfo `json:"error"`
	}
	if err := json.Unmarshal(raw, &body); err != nil || st != 503 || body.Error.Message != MsgQueuedTokens || body.Error.Param != nil {
		t.Fatalf("second request: %d %s", st, raw)
	}
	<-done
	if got := scrapeValue(t, srv.URL, "vllm:admission_rejections_total", "reason", RejectQueuedTokens); got != 1 {
		t.Fatalf("rejections %v, want 1", got)
	}
}

func TestAdmissionFlags(t *testing.T) {
	cfg, err := ParseServeArgs([]string{"--max-num-queued-reqs", "8", "--max-num-queued-tokens=4096"})
	if err != nil || cfg.MaxNumQueuedReqs != 8 || cfg.MaxNumQueuedTokens != 4096 {
		t.Fatalf("%+v %v", cfg, err)
	}
	if _, err := ParseServeArgs([]string{"--max-num-queued-reqs", "0"}); err == nil {
		t.Fatal("a cap of 0 was taken")
	}
}

// slowSteps makes every engine step last 150 ms, so that requests stay in
// flight long enough to be counted.
var slowSteps = engine.StepProfile{Name: "slow", Fixed: 150 * time.Millisecond}

// scrapeValue is the value of name's series whose label is value.
func scrapeValue(t *testing.T, url, name, label, value string) float64 {
	t.Helper()
	f, ok := scrape(t, url)[name]
	if !ok {
		t.Fatalf("no %s in /metrics", name)
	}
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label && l.GetValue() == value {
				return m.GetCounter().GetValue() + m.GetGauge().GetValue()
			}
		}
	}
	t.Fatalf("no %s{%s=%q} in /metrics", name, label, value)
	return 0
}

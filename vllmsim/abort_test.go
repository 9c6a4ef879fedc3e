package vllmsim

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
)

// openStream starts a streamed completion and returns its reader once n
// token events have arrived; cancel closes the connection.
func openStream(t *testing.T, url, body string, n int) (context.CancelFunc, *http.Response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/completions", strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("status %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	for seen := 0; seen < n; {
		if !sc.Scan() {
			cancel()
			t.Fatalf("the stream ended after %d events: %v", seen, sc.Err())
		}
		if strings.HasPrefix(sc.Text(), "data: ") {
			seen++
		}
	}
	return cancel, resp
}

// A client that closes the connection mid-stream (a user pressing stop)
// aborts its request, as vLLM does: the sequence leaves the batch, its KV
// blocks are freed, and it counts as finished with reason "abort". One
// that leaves while still queued leaves the queue.
func TestDisconnectFreesSlotAndBlocks(t *testing.T) {
	s := start(t, Config{Profile: fastProfile, MaxNumSeqs: 1})
	long := `{"prompt":"` + textPrompt("long", 200) + `","max_tokens":10000,"ignore_eos":true,"stream":true}`
	cancelRunning, resp := openStream(t, s.URL, long, 3)
	defer resp.Body.Close()

	// A second request waits for the only slot.
	queued, cancelQueued := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(queued, "POST", s.URL+"/v1/completions", strings.NewReader(long))
		if r, err := http.DefaultClient.Do(req); err == nil {
			<-queued.Done() // the headers came at once; the connection stays open until the client leaves
			r.Body.Close()
		}
	}()
	waitFor(t, func() bool { return metricValue(scrape(t, s.URL), "vllm:num_requests_waiting") == 1 })
	f := scrape(t, s.URL)
	if metricValue(f, "vllm:num_requests_running") != 1 || metricValue(f, "vllm:kv_cache_usage_perc") <= 0 {
		t.Fatalf("while streaming: running %v, KV usage %v", metricValue(f, "vllm:num_requests_running"), metricValue(f, "vllm:kv_cache_usage_perc"))
	}

	cancelQueued()
	<-done
	waitFor(t, func() bool {
		f := scrape(t, s.URL)
		return metricValue(f, "vllm:num_requests_waiting") == 0 && hasSeries(f, "vllm:request_success_total", "finished_reason", "abort", 1)
	})
	if got := metricValue(scrape(t, s.URL), "vllm:num_requests_running"); got != 1 {
		t.Fatalf("running %v after the queued request left, want the first still running", got)
	}

	cancelRunning()
	waitFor(t, func() bool {
		f := scrape(t, s.URL)
		return metricValue(f, "vllm:num_requests_running") == 0 && metricValue(f, "vllm:kv_cache_usage_perc") == 0 &&
			hasSeries(f, "vllm:request_success_total", "finished_reason", "abort", 2)
	})
	if st := s.Stats(); st.FinishedSeqs != 0 {
		t.Fatalf("%d sequences finished; both were aborted", st.FinishedSeqs)
	}
}

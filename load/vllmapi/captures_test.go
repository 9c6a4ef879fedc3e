package vllmapi

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/llmslo/llmslo/internal/vllmcaptures"
)

// The scraper reads each captured /metrics of a real vLLM server to the
// right sums (internal/vllmcaptures/testdata/README.md): V0's spellings without an
// engine label, V1's with one engine (twice: an excerpt with HELP/TYPE lines and
// one grepped without them), and V1's with two, whose queue gauges add up and
// whose KV usage is the larger.
func TestScraperReadsRealScrapes(t *testing.T) {
	for _, c := range []struct {
		name string
		want ServerSample
	}{
		{"metrics-v0.txt", ServerSample{}},
		{"metrics-v1-engine.txt", ServerSample{Running: 2, Waiting: 3, KVCacheUsage: 0.4567, Preemptions: 1}},
		{"metrics-v1-two-engines.txt", ServerSample{KVCacheUsage: 0.6}},
		// Samples without # TYPE lines (the source grepped them out): read
		// as untyped. Idle after ten requests: 80 prompt tokens looked up in
		// the prefix cache, no hits series in the excerpt.
		{"metrics-v1-aicr.txt", ServerSample{PrefixQueries: 80}},
	} {
		got, err := ParseServerMetrics(bytes.NewReader(vllmcaptures.Read(c.name)))
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
}

// POST /tokenize as vLLM answers it: the count is read.
func TestTokenizerReadsRealAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(vllmcaptures.Read("tokenize.json"))
	}))
	defer srv.Close()
	n, err := NewHTTPTokenizer(srv.URL, "m", srv.Client()).CountTokens(context.Background(), "Explain the significance of KV cache in language models.")
	if err != nil || n != 12 {
		t.Fatalf("count %d, %v; want 12", n, err)
	}
}

// FuzzParseServerMetrics: any text either parses or is refused with an
// error, never a panic, and a text that parses names one of vLLM's queue
// gauges (the parser refuses a scrape that carries neither).
func FuzzParseServerMetrics(f *testing.F) {
	for _, name := range []string{"metrics-v0.txt", "metrics-v1-engine.txt", "metrics-v1-two-engines.txt", "metrics-v1-aicr.txt"} {
		f.Add(vllmcaptures.Read(name))
	}
	f.Add([]byte("vllm:num_requests_running 1\nvllm:num_requests_waiting{engine=\"1\"} 2\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		_, err := ParseServerMetrics(bytes.NewReader(text))
		if err == nil && !bytes.Contains(text, []byte("vllm:num_requests_running")) && !bytes.Contains(text, []byte("vllm:num_requests_waiting")) {
			t.Fatalf("parsed a scrape without vLLM's queue gauges: %q", text)
		}
	})
}

package client

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
)

// BenchmarkClientStream runs whole 256-token streams over loopback and
// reports the cost per event: request, headers, SSE reading, event parsing
// and timestamps. The server writes a pre-rendered vLLM-like stream, so
// nearly all of the cost is the client's.
func BenchmarkClientStream(b *testing.B) {
	const tokens = 256
	stream := benchStream(tokens)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(stream)
	}))
	defer srv.Close()
	c := newTestClient(b, srv.URL, Config{})
	req := workload.Request{PromptIDs: tokenIDs(512), OutputTokens: tokens}
	var out Outcome
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		c.Do(b.Context(), req, &out)
		if !out.OK() || out.TokenEvents != tokens || out.CompletionTokens != tokens {
			b.Fatalf("%s: %v (%d events)", out.Class, out.Err, out.TokenEvents)
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*tokens), "ns/event")
}

// BenchmarkClientStreamPaced is the same length of stream from the
// simulator, paced so that it writes and flushes every event separately (one
// read per event, as at low load). A nanosecond's pacing has every deadline
// passed by the time its event is ready, so nothing waits; the cost per
// event includes the simulator's, on the same cores.
func BenchmarkClientStreamPaced(b *testing.B) {
	const tokens = 256
	srv := simtest.Start(b, vllmsim.Config{Model: testModel, ProfileName: "instant", Faults: vllmsim.Faults{PacedITL: time.Nanosecond}}) // untapped: the tap's copies would count as the client's cost
	c := newTestClient(b, srv.URL, Config{})
	req := workload.Request{PromptIDs: tokenIDs(512), OutputTokens: tokens}
	var out Outcome
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		c.Do(b.Context(), req, &out)
		if !out.OK() || out.TokenEvents != tokens {
			b.Fatalf("%s: %v (%d events)", out.Class, out.Err, out.TokenEvents)
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*tokens), "ns/event")
}

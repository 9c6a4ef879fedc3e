package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/engine"
)

const testKey = "sk-fault-test-0123456789"

// doBounded runs one request with a safety bound, failing the test if the
// client does not return well within it.
func doBounded(t *testing.T, ctx context.Context, c *Client, req workload.Request) (Outcome, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var out Outcome
	start := time.Now()
	c.Do(ctx, req, &out)
	elapsed := time.Since(start)
	if elapsed > 5*time.Second {
		t.Fatalf("request took %v: the client hung", elapsed)
	}
	if out.Err != nil && strings.Contains(out.Err.Error(), testKey) {
		t.Fatalf("error shows the API key: %v", out.Err)
	}
	return out, elapsed
}

func TestClientFaults(t *testing.T) {
	tests := []struct {
		name      string
		faults    vllmsim.Faults
		client    Config
		wantClass ErrorClass
		wantErr   string // part of the error text
		check     func(t *testing.T, out Outcome)
	}{
		{name: "HTTP 500", faults: vllmsim.Faults{ErrorRate: 1, ErrorStatus: 500, ErrorMessage: "engine exploded"}, wantClass: "http_500", wantErr: "engine exploded"},
		{name: "HTTP 429", faults: vllmsim.Faults{ErrorRate: 1, ErrorStatus: 429, ErrorMessage: "slow down"}, wantClass: "http_429", wantErr: "slow down"},
		{name: "HTTP 401 echoing headers", faults: vllmsim.Faults{ErrorRate: 1, ErrorStatus: 401, ErrorMessage: "bad key", ErrorEchoHeaders: true}, wantClass: "http_401", wantErr: "[redacted]"},
		{name: "reset mid-stream", faults: vllmsim.Faults{DisconnectRate: 1, DisconnectAfter: 3, PacedITL: time.Millisecond}, wantClass: ClassReset,
			check: func(t *testing.T, out Outcome) {
				if out.TokenEvents != 3 {
					t.Errorf("token events before the reset = %d, want 3", out.TokenEvents)
				}
			}},
		{name: "reset before any token", faults: vllmsim.Faults{DisconnectRate: 1, DisconnectAfter: 0}, wantClass: ClassReset},
		{name: "stall mid-stream", faults: vllmsim.Faults{StallRate: 1, StallAfter: 2, StallFor: time.Hour}, client: Config{StallTimeout: 200 * time.Millisecond}, wantClass: ClassStall},
		{name: "malformed event", faults: vllmsim.Faults{MalformedRate: 1, MalformedAfter: 2}, wantClass: ClassMalformed, wantErr: "malformed event"},
		// vLLM's own message for a generation that failed mid-stream.
		{name: "error event", faults: vllmsim.Faults{ErrorEventRate: 1, ErrorEventAfter: 4}, wantClass: ClassServerError, wantErr: "Internal server error"},
		{name: "error event after the last token", faults: vllmsim.Faults{ErrorEventRate: 1, ErrorEventAfter: 8}, wantClass: ClassServerError},
		{name: "timeout", faults: vllmsim.Faults{PacedITL: 50 * time.Millisecond}, client: Config{RequestTimeout: 300 * time.Millisecond}, wantClass: ClassTimeout},
		{name: "no usage", faults: vllmsim.Faults{NoUsageRate: 1}, check: func(t *testing.T, out Outcome) {
			if out.UsageReported || out.CompletionTokens != 8 || out.PromptTokens != 0 {
				t.Errorf("usage %v, completion %d, prompt %d; want false, 8 (token events), 0", out.UsageReported, out.CompletionTokens, out.PromptTokens)
			}
		}},
		{name: "no [DONE]", faults: vllmsim.Faults{NoDoneRate: 1}, check: func(t *testing.T, out Outcome) {
			if !out.UsageReported || out.CompletionTokens != 8 || out.PromptTokens != 2 {
				t.Errorf("usage %v, completion %d, prompt %d; want true, 8, 2", out.UsageReported, out.CompletionTokens, out.PromptTokens)
			}
		}},
		{name: "no usage, no [DONE]", faults: vllmsim.Faults{NoUsageRate: 1, NoDoneRate: 1}, check: func(t *testing.T, out Outcome) {
			if out.UsageReported || out.CompletionTokens != 8 || out.TokenEvents != 8 {
				t.Errorf("usage %v, completion %d, events %d; want false, 8, 8", out.UsageReported, out.CompletionTokens, out.TokenEvents)
			}
		}},
		{name: "comments and CRLF", faults: vllmsim.Faults{Comments: true, LineEnding: "\r\n"}},
		{name: "CR line endings", faults: vllmsim.Faults{LineEnding: "\r"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := simServer(t, vllmsim.Config{Faults: tt.faults})
			tt.client.APIKey = testKey
			c := newTestClient(t, srv.URL, tt.client)
			out, elapsed := doBounded(t, t.Context(), c, workload.Request{Prompt: "two words", OutputTokens: 8})
			if out.Class != tt.wantClass {
				t.Fatalf("class %q (%v), want %q", out.Class, out.Err, tt.wantClass)
			}
			if (out.Class == "") != (out.Err == nil) {
				t.Fatalf("class %q with error %v", out.Class, out.Err)
			}
			if tt.wantErr != "" && !strings.Contains(out.Err.Error(), tt.wantErr) {
				t.Errorf("error %q does not mention %q", out.Err, tt.wantErr)
			}
			if out.Class == "" && (out.TokenEvents != 8 || len(out.ITL) != 7) {
				t.Errorf("token events %d, ITL samples %d; want 8, 7", out.TokenEvents, len(out.ITL))
			}
			if out.Class == ClassStall && (elapsed < 200*time.Millisecond || elapsed > 2*time.Second) {
				t.Errorf("stall detected after %v, want about 200ms", elapsed)
			}
			if tt.check != nil {
				tt.check(t, out)
			}
		})
	}
}

// TestClientStallBeforeHeaders: a server that accepts the request and never
// answers is a stall, not a hang.
func TestClientStallBeforeHeaders(t *testing.T) {
	quit := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // lets the server notice the client leave
		select {
		case <-r.Context().Done():
		case <-quit:
		}
	}))
	defer srv.Close()
	defer close(quit)
	c := newTestClient(t, srv.URL, Config{StallTimeout: 150 * time.Millisecond, APIKey: testKey})
	out, _ := doBounded(t, t.Context(), c, workload.Request{Prompt: "x", OutputTokens: 1})
	if out.Class != ClassStall {
		t.Fatalf("class %q (%v), want stall", out.Class, out.Err)
	}
}

// TestClientNoTokens: a stream that ends properly with usage but no text.
func TestClientNoTokens(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"\",\"finish_reason\":\"stop\"}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":0}}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, Config{})
	out, _ := doBounded(t, t.Context(), c, workload.Request{Prompt: "x", OutputTokens: 4})
	if out.Class != ClassNoTokens || !out.UsageReported || out.PromptTokens != 1 {
		t.Fatalf("class %q (%v), usage %v, prompt %d; want no_tokens, true, 1", out.Class, out.Err, out.UsageReported, out.PromptTokens)
	}
}

func TestClientConnectRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := newTestClient(t, "http://"+addr, Config{APIKey: testKey})
	out, _ := doBounded(t, t.Context(), c, workload.Request{Prompt: "x", OutputTokens: 1})
	if out.Class != ClassConnect {
		t.Fatalf("class %q (%v), want connect", out.Class, out.Err)
	}
	if _, err := c.Models(t.Context()); err == nil || strings.Contains(err.Error(), testKey) {
		t.Fatalf("Models on a closed port: %v", err)
	}
}

func TestClientCanceled(t *testing.T) {
	srv := simServer(t, vllmsim.Config{Faults: vllmsim.Faults{PacedITL: 50 * time.Millisecond}})
	c := newTestClient(t, srv.URL, Config{})
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(120*time.Millisecond, cancel)
	out, elapsed := doBounded(t, ctx, c, workload.Request{Prompt: "x", OutputTokens: 100})
	if out.Class != ClassCanceled || !errors.Is(out.Err, context.Canceled) {
		t.Fatalf("class %q (%v), want canceled", out.Class, out.Err)
	}
	if out.TokenEvents < 1 || elapsed > time.Second {
		t.Errorf("canceled after %d token events and %v; want some events, well under 1s", out.TokenEvents, elapsed)
	}

	// Canceled before it starts.
	done, cancelNow := context.WithCancel(t.Context())
	cancelNow()
	out, _ = doBounded(t, done, c, workload.Request{Prompt: "x", OutputTokens: 1})
	if out.Class != ClassCanceled {
		t.Fatalf("class %q (%v), want canceled", out.Class, out.Err)
	}
}

// TestClientQueuesBehindTheServersCapacity: a simulator that runs at most
// two sequences, in steps of 10 ms, queues the rest, so latency grows with
// the queue.
func TestClientQueuesBehindTheServersCapacity(t *testing.T) {
	const step = 10 * time.Millisecond
	srv := simServer(t, vllmsim.Config{Profile: engine.StepProfile{Name: "fixed-10ms", Fixed: step}, MaxNumSeqs: 2})
	c := newTestClient(t, srv.URL, Config{})
	var running, waiting int
	stop := make(chan struct{})
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		for {
			st := srv.Stats()
			running, waiting = max(running, st.Running), max(waiting, st.Waiting)
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	outs := make([]Outcome, 6)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() { c.Do(t.Context(), workload.Request{Prompt: "x", OutputTokens: 5}, &outs[i]) })
	}
	wg.Wait()
	close(stop)
	<-polled
	// From the first send: the server's steps cannot start before it, and
	// the six sends are not at one instant.
	firstSent, lastFirst := outs[0].Sent, outs[0].First
	for i, out := range outs {
		if !out.OK() {
			t.Fatalf("request %d: %s %v", i, out.Class, out.Err)
		}
		if out.Sent.Before(firstSent) {
			firstSent = out.Sent
		}
		if out.First.After(lastFirst) {
			lastFirst = out.First
		}
	}
	slowest := lastFirst.Sub(firstSent)
	if running != 2 || waiting < 1 {
		t.Errorf("ran at most %d at once with at most %d waiting, want 2 with a queue", running, waiting)
	}
	// Each request holds a slot for its 5 tokens, one per step; the last
	// pair waits for two pairs, so its first token comes with the 11th step
	// at the earliest.
	if slowest < 11*step {
		t.Errorf("last first token %v after the first send, want at least %v behind the queue", slowest, 11*step)
	}
}

// TestClientDoneWithBodyLeftOpen: after [DONE] the request is finished even
// if the server keeps the response open.
func TestClientDoneWithBodyLeftOpen(t *testing.T) {
	quit := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[{\"text\":\"b\"}]}\n\ndata: [DONE]\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-quit:
		}
	}))
	defer srv.Close()
	defer close(quit)
	c := newTestClient(t, srv.URL, Config{StallTimeout: 5 * time.Second})
	out, elapsed := doBounded(t, t.Context(), c, workload.Request{Prompt: "x", OutputTokens: 2})
	if !out.OK() || out.TokenEvents != 2 || out.UsageReported || out.CompletionTokens != 2 {
		t.Fatalf("class %q (%v), events %d, usage %v, completion %d", out.Class, out.Err, out.TokenEvents, out.UsageReported, out.CompletionTokens)
	}
	if elapsed > time.Second {
		t.Errorf("returned %v after [DONE]; the open body held it up", elapsed)
	}
}

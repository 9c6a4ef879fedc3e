package client

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/workload"
)

// Reused calls must never mix requests: each body reaches the server whole
// and as its own, with the client's headers, while some requests end early
// (the server refuses them before reading a large body, so their call is
// still the transport's when Do returns) and the rest run concurrently.
func TestReusedCallsCarryTheirOwnBodies(t *testing.T) {
	stream := benchStream(1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > 64<<10 {
			w.WriteHeader(http.StatusBadRequest) // before reading the body
			return
		}
		var body struct {
			Prompt []int `json:"prompt"`
		}
		raw, err := io.ReadAll(r.Body)
		if err == nil {
			err = json.Unmarshal(raw, &body)
		}
		if err != nil || r.Header.Get("Authorization") != "Bearer k" || r.Header.Get("Content-Type") != "application/json" {
			w.WriteHeader(http.StatusTeapot)
			return
		}
		// The first prompt id names the request; every id must follow it.
		for i, id := range body.Prompt {
			if id != body.Prompt[0]+i {
				w.WriteHeader(http.StatusConflict)
				return
			}
		}
		_, _ = w.Write(stream)
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, Config{APIKey: "k"})

	prompt := func(first, n int) []int {
		ids := make([]int, n)
		for i := range ids {
			ids[i] = first + i
		}
		return ids
	}
	var wg sync.WaitGroup
	results := make([]Outcome, 400)
	for i := range results {
		wg.Go(func() {
			n := 16 + i%50
			if i%10 == 0 {
				n = 40000 // over 64 KiB encoded: refused unread
			}
			c.Do(t.Context(), workload.Request{Index: i, PromptIDs: prompt(100000*i, n), OutputTokens: 1}, &results[i])
		})
	}
	wg.Wait()
	for i, out := range results {
		if i%10 == 0 {
			// Refused: HTTP 400, or a reset if the server closed the
			// connection before the client had read its answer.
			assert.False(t, out.OK(), "request %d", i)
			continue
		}
		require.True(t, out.OK(), "request %d: %s %v", i, out.Class, out.Err)
		assert.False(t, out.Written.IsZero(), "request %d: no write time", i)
	}
}

// A request the server answers before it has read the body leaves the body
// with the transport, still being written. Its call must not serve the next
// request: the old write would read the new body.
func TestAnAnswerBeforeTheBodyKeepsTheCall(t *testing.T) {
	stream := benchStream(1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength < 1<<20 {
			raw, err := io.ReadAll(r.Body)
			if err != nil || !json.Valid(raw) {
				w.WriteHeader(http.StatusTeapot)
				return
			}
			_, _ = w.Write(stream)
			return
		}
		// Answer first, then read the body slowly: the client's transport
		// goes on writing it after Do has returned.
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = buf.WriteString("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
		_ = buf.Flush()
		chunk := make([]byte, 32<<10)
		for range 30 {
			if _, err := buf.Read(chunk); err != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, Config{})

	var out Outcome
	c.Do(t.Context(), workload.Request{PromptIDs: tokenIDs(1 << 20), OutputTokens: 1}, &out)
	require.Equal(t, HTTPStatusClass(http.StatusBadRequest), out.Class, "%v", out.Err)
	// The transport gives the early answer's write up to 50 ms more.
	for i, until := 0, time.Now().Add(150*time.Millisecond); time.Now().Before(until); i++ {
		c.Do(t.Context(), workload.Request{Index: i, PromptIDs: tokenIDs(64), OutputTokens: 1}, &out)
		require.True(t, out.OK(), "request %d after the early answer: %s %v", i, out.Class, out.Err)
	}
}

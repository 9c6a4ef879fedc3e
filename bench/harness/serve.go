package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The bare server's events, pre-rendered in vLLM's completions shape, so
// that a client reads what it would read from vLLM and the server does
// nothing but write.
const (
	tokenEvent = `data: {"id":"cmpl-bench","object":"text_completion","created":1732000000,"model":"bench","choices":[{"index":0,"text":" token","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}` + "\n\n"
	usageHead  = `data: {"id":"cmpl-bench","object":"text_completion","created":1732000000,"model":"bench","choices":[],"usage":{"prompt_tokens":`
	modelsBody = `{"object":"list","data":[{"id":"bench","object":"model","owned_by":"bench","max_model_len":131072}]}`
)

// bareServer writes max_tokens token events per request, each written and
// flushed on its own (as vLLM does at decode), itl apart from the
// request's arrival on absolute deadlines; hold delays everything after
// the first token (to keep streams in flight for the memory measure).
type bareServer struct {
	itl, hold time.Duration
	burst     int // events per write and flush: 1 as at decode, more as when events queue up
	bodies    sync.Pool
	open      atomic.Int64 // streams past their first token, not yet ended
}

func serveCmd(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:8100", "listen address")
	itl := fs.Duration("itl", 0, "time between a stream's token events (0: back to back, each flushed)")
	hold := fs.Duration("hold", 0, "hold every stream this long after its first token")
	burst := fs.Int("burst", 1, "write and flush this many events at once (a burst: many events per client read)")
	_ = fs.Parse(args)
	s := &bareServer{itl: *itl, hold: *hold, burst: max(*burst, 1)}
	s.bodies.New = func() any { return new(bytes.Buffer) }
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/completions", s.completions)
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, modelsBody)
	})
	mux.HandleFunc("GET /open", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, s.open.Load())
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); _ = srv.Close() }()
	fmt.Fprintf(os.Stderr, "bare SSE server on http://%s (itl %v, hold %v, burst %d)\n", ln.Addr(), *itl, *hold, s.burst)
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

func (s *bareServer) completions(w http.ResponseWriter, r *http.Request) {
	arrival := time.Now()
	buf := s.bodies.Get().(*bytes.Buffer)
	buf.Reset()
	_, err := buf.ReadFrom(r.Body)
	body := buf.Bytes()
	n, prompt := jsonInt(body, `"max_tokens":`), promptLen(body)
	s.bodies.Put(buf)
	if err != nil || n <= 0 {
		http.Error(w, `{"error":"want a JSON body with max_tokens"}`, http.StatusBadRequest)
		return
	}
	h := w.Header()
	h["Content-Type"] = []string{"text/event-stream"}
	h["Cache-Control"] = []string{"no-cache"}
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	ctx := r.Context()
	for k := range n {
		if k == 1 && s.hold > 0 {
			s.open.Add(1)
			t := time.NewTimer(s.hold)
			select {
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
			s.open.Add(-1)
		}
		if s.itl > 0 && k%s.burst == 0 {
			if d := time.Until(arrival.Add(time.Duration(k) * s.itl)); d > 0 {
				time.Sleep(d)
			}
		}
		if ctx.Err() != nil {
			return
		}
		if _, err := io.WriteString(w, tokenEvent); err != nil {
			return
		}
		if (k+1)%s.burst != 0 && k+1 < n {
			continue
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
	var tail []byte
	tail = append(tail, usageHead...)
	tail = strconv.AppendInt(tail, int64(prompt), 10)
	tail = append(tail, `,"total_tokens":`...)
	tail = strconv.AppendInt(tail, int64(prompt+n), 10)
	tail = append(tail, `,"completion_tokens":`...)
	tail = strconv.AppendInt(tail, int64(n), 10)
	tail = append(tail, "}}\n\ndata: [DONE]\n\n"...)
	_, _ = w.Write(tail)
}

// jsonInt reads the integer after key, or -1.
func jsonInt(b []byte, key string) int {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return -1
	}
	b = bytes.TrimLeft(b[i+len(key):], " ")
	j := 0
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	v, err := strconv.Atoi(string(b[:j]))
	if err != nil {
		return -1
	}
	return v
}

// promptLen counts the token ids of "prompt":[...] (a text prompt counts
// as zero), so that usage matches what was sent and llmslo's length check
// stays quiet.
func promptLen(b []byte) int {
	i := bytes.Index(b, []byte(`"prompt":[`))
	if i < 0 {
		return 0
	}
	b = b[i+len(`"prompt":[`):]
	end := bytes.IndexByte(b, ']')
	if end <= 0 {
		return 0
	}
	return bytes.Count(b[:end], []byte{','}) + 1
}

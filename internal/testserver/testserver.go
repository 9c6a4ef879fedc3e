// Package testserver is a scripted OpenAI-compatible streaming server with
// exact timing and faults, for the engine's own tests.
package testserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fault says how a Server misbehaves.
type Fault int

const (
	FaultNone       Fault = iota
	FaultStatus           // answer Status with StatusBody (and the request headers when EchoHeaders)
	FaultReset            // break the connection after FaultAfter token events
	FaultStall            // send nothing more after FaultAfter token events, until the client leaves
	FaultMalformed        // send an event that is not JSON after FaultAfter token events
	FaultErrorEvent       // send {"error": ...} after FaultAfter token events, as vLLM does
)

// Config is the known behaviour of a Server. The zero value streams
// the requested number of tokens at once, one per event, with usage and
// [DONE].
type Config struct {
	TTFT time.Duration // from admission to the first token event
	ITL  time.Duration // between token events
	// Tokens is how many tokens to generate; 0 means the request's
	// max_tokens, or 16 without one.
	Tokens int
	// TokensPerEvent packs several tokens into one event (default 1).
	TokensPerEvent int
	// PromptTokens is the usage's prompt_tokens; 0 means the number of
	// token ids, or of space-separated words of a text prompt.
	PromptTokens int
	// Capacity serves at most this many requests at a time; the rest wait
	// in FIFO order (Go channel senders are woken in order). 0: no limit.
	Capacity int

	Fault      Fault
	FaultAfter int
	Status     int
	StatusBody string
	// EchoHeaders appends the request's headers to a FaultStatus body, as
	// some proxies do.
	EchoHeaders bool

	NoUsage         bool // no usage chunk
	NoDone          bool // no "data: [DONE]"
	ContinuousUsage bool // usage on every token event, as continuous_usage_stats
	LineEnding      string
	Comments        bool // a ": ping" comment before every event
	Models          []string
}

// Request is one request as the server received it.
type Request struct {
	Path     string
	Header   http.Header
	Body     []byte
	Parsed   Body
	Admitted time.Time
	// Writes holds when each token event was written, taken just before
	// the write, so a client that has read an event finds it recorded.
	Writes []time.Time
}

type Body struct {
	Model    string          `json:"model"`
	Prompt   json.RawMessage `json:"prompt"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	MaxTokens           *int     `json:"max_tokens"`
	MaxCompletionTokens *int     `json:"max_completion_tokens"`
	MinTokens           *int     `json:"min_tokens"`
	IgnoreEOS           *bool    `json:"ignore_eos"`
	Stream              bool     `json:"stream"`
	Temperature         *float64 `json:"temperature"`
	StreamOptions       *struct {
		IncludeUsage         bool `json:"include_usage"`
		ContinuousUsageStats bool `json:"continuous_usage_stats"`
	} `json:"stream_options"`
}

// Server is an OpenAI-compatible streaming server with deterministic
// timing: every event is written at an absolute deadline from the request's
// admission, so scheduling jitter does not accumulate.
type Server struct {
	*httptest.Server
	cfg  Config
	sem  chan struct{}
	quit chan struct{}

	mu          sync.Mutex
	requests    []*Request
	inFlight    int
	maxInFlight int
}

// New starts a Server that closes when the test ends.
func New(t testing.TB, cfg Config) *Server {
	t.Helper()
	s := Start(cfg)
	t.Cleanup(s.Close)
	return s
}

// Start starts a Server; the caller closes it.
func Start(cfg Config) *Server {
	if cfg.TokensPerEvent <= 0 {
		cfg.TokensPerEvent = 1
	}
	if cfg.LineEnding == "" {
		cfg.LineEnding = "\n"
	}
	s := &Server{cfg: cfg, quit: make(chan struct{})}
	if cfg.Capacity > 0 {
		s.sem = make(chan struct{}, cfg.Capacity)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/completions", s.serveStream)
	mux.HandleFunc("POST /v1/chat/completions", s.serveStream)
	mux.HandleFunc("GET /v1/models", s.serveModels)
	s.Server = httptest.NewServer(mux)
	return s
}

// Close ends stalled handlers, then closes the server.
func (s *Server) Close() {
	select {
	case <-s.quit:
	default:
		close(s.quit)
	}
	s.Server.Close()
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = *r
		out[i].Writes = append([]time.Time(nil), r.Writes...)
	}
	return out
}

// MaxInFlight is the most requests served at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	type model struct {
		ID     string `json:"id"`
		Object string `json:"object"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, id := range s.cfg.Models {
		list.Data = append(list.Data, model{ID: id, Object: "model"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

func (s *Server) serveStream(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var parsed Body
	if err := json.Unmarshal(body, &parsed); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	if s.sem != nil {
		select {
		case s.sem <- struct{}{}:
			defer func() { <-s.sem }()
		case <-r.Context().Done():
			return
		case <-s.quit:
			return
		}
	}
	admitted := time.Now()
	s.mu.Lock()
	record := &Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Parsed: parsed, Admitted: admitted}
	s.requests = append(s.requests, record)
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()

	cfg := s.cfg
	if cfg.Fault == FaultStatus {
		msg := cfg.StatusBody
		if cfg.EchoHeaders {
			for name, values := range r.Header {
				msg += fmt.Sprintf("\n%s: %s", name, strings.Join(values, ","))
			}
		}
		http.Error(w, msg, cfg.Status)
		return
	}
	chat := strings.HasSuffix(r.URL.Path, "/chat/completions")
	tokens := cfg.Tokens
	if tokens == 0 {
		tokens = 16
		if parsed.MaxTokens != nil {
			tokens = *parsed.MaxTokens
		}
	}
	prompt := cfg.PromptTokens
	if prompt == 0 {
		prompt = promptLength(parsed)
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()

	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	waitUntil := func(deadline time.Time) bool {
		timer.Reset(time.Until(deadline))
		select {
		case <-timer.C:
			return true
		case <-r.Context().Done():
		case <-s.quit:
		}
		return false
	}
	send := func(data string) bool {
		var b strings.Builder
		if cfg.Comments {
			b.WriteString(": ping" + cfg.LineEnding)
		}
		b.WriteString("data: " + data + cfg.LineEnding + cfg.LineEnding)
		if _, err := io.WriteString(w, b.String()); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if chat && !send(`{"id":"chat-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`) {
		return
	}
	events := (tokens + cfg.TokensPerEvent - 1) / cfg.TokensPerEvent
	sent := 0
	for e := 0; e < events; e++ {
		if cfg.Fault != FaultNone && e == cfg.FaultAfter {
			s.fault(rc, r, send)
			return
		}
		if !waitUntil(admitted.Add(cfg.TTFT + time.Duration(e)*cfg.ITL)) {
			return
		}
		n := min(cfg.TokensPerEvent, tokens-sent)
		sent += n
		text := strings.Repeat(" w", n)
		finish := "null"
		if sent == tokens {
			finish = `"length"`
		}
		usage := "null"
		if cfg.ContinuousUsage {
			usage = fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}`, prompt, sent, prompt+sent)
		}
		var ev string
		if chat {
			ev = fmt.Sprintf(`{"id":"chat-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":%q},"finish_reason":%s}],"usage":%s}`, text, finish, usage)
		} else {
			ev = fmt.Sprintf(`{"id":"cmpl-1","object":"text_completion","model":"m","choices":[{"index":0,"text":%q,"logprobs":null,"finish_reason":%s}],"usage":%s}`, text, finish, usage)
		}
		s.mu.Lock()
		record.Writes = append(record.Writes, time.Now())
		s.mu.Unlock()
		if !send(ev) {
			return
		}
	}
	if cfg.Fault != FaultNone && cfg.FaultAfter >= events {
		s.fault(rc, r, send)
		return
	}
	if !cfg.NoUsage {
		if !send(fmt.Sprintf(`{"id":"cmpl-1","object":"text_completion","model":"m","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, prompt, sent, prompt+sent)) {
			return
		}
	}
	if !cfg.NoDone {
		send("[DONE]")
	}
}

// fault misbehaves as configured, mid-stream.
func (s *Server) fault(rc *http.ResponseController, r *http.Request, send func(string) bool) {
	switch s.cfg.Fault {
	case FaultReset:
		_ = rc.Flush()
		panic(http.ErrAbortHandler) // closes the connection without ending the chunked body
	case FaultStall:
		select {
		case <-r.Context().Done():
		case <-s.quit:
		}
	case FaultMalformed:
		send(`{"choices":[{"text":" w"}`)
	case FaultErrorEvent:
		send(`{"error":{"object":"error","message":"engine died","type":"InternalServerError","param":null,"code":500}}`)
	}
}

// promptLength counts token ids, or the words of a text prompt.
func promptLength(b Body) int {
	if len(b.Messages) > 0 {
		return len(strings.Fields(b.Messages[0].Content))
	}
	var ids []int
	if json.Unmarshal(b.Prompt, &ids) == nil {
		return len(ids)
	}
	var text string
	if json.Unmarshal(b.Prompt, &text) == nil {
		return len(strings.Fields(text))
	}
	return 0
}

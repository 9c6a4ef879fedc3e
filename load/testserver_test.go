package load

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

// fakeFault says how a fakeServer misbehaves.
type fakeFault int

const (
	faultNone       fakeFault = iota
	faultStatus               // answer Status with StatusBody (and the request headers when EchoHeaders)
	faultReset                // break the connection after FaultAfter token events
	faultStall                // send nothing more after FaultAfter token events, until the client leaves
	faultMalformed            // send an event that is not JSON after FaultAfter token events
	faultErrorEvent           // send {"error": ...} after FaultAfter token events, as vLLM does
)

// fakeConfig is the known behaviour of a fakeServer. The zero value streams
// the requested number of tokens at once, one per event, with usage and
// [DONE].
type fakeConfig struct {
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

	Fault      fakeFault
	FaultAfter int
	Status     int
	StatusBody string
	// EchoHeaders appends the request's headers to a faultStatus body, as
	// some proxies do.
	EchoHeaders bool

	NoUsage         bool // no usage chunk
	NoDone          bool // no "data: [DONE]"
	ContinuousUsage bool // usage on every token event, as continuous_usage_stats
	LineEnding      string
	Comments        bool // a ": ping" comment before every event
	Models          []string
}

// fakeRequest is one request as the server received it.
type fakeRequest struct {
	Path     string
	Header   http.Header
	Body     []byte
	Parsed   fakeBody
	Admitted time.Time
	// Writes holds when each token event was written, taken just before
	// the write, so a client that has read an event finds it recorded.
	Writes []time.Time
}

type fakeBody struct {
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

// fakeServer is an OpenAI-compatible streaming server with deterministic
// timing: every event is written at an absolute deadline from the request's
// admission, so scheduling jitter does not accumulate.
type fakeServer struct {
	*httptest.Server
	cfg  fakeConfig
	sem  chan struct{}
	quit chan struct{}

	mu          sync.Mutex
	requests    []*fakeRequest
	inFlight    int
	maxInFlight int
}

// newFakeServer starts a fakeServer that closes when the test ends.
func newFakeServer(t testing.TB, cfg fakeConfig) *fakeServer {
	t.Helper()
	s := startFakeServer(cfg)
	t.Cleanup(s.Close)
	return s
}

// startFakeServer starts a fakeServer; the caller closes it.
func startFakeServer(cfg fakeConfig) *fakeServer {
	if cfg.TokensPerEvent <= 0 {
		cfg.TokensPerEvent = 1
	}
	if cfg.LineEnding == "" {
		cfg.LineEnding = "\n"
	}
	s := &fakeServer{cfg: cfg, quit: make(chan struct{})}
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
func (s *fakeServer) Close() {
	select {
	case <-s.quit:
	default:
		close(s.quit)
	}
	s.Server.Close()
}

// Requests returns the requests received so far.
func (s *fakeServer) Requests() []fakeRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]fakeRequest, len(s.requests))
	for i, r := range s.requests {
		out[i] = *r
		out[i].Writes = append([]time.Time(nil), r.Writes...)
	}
	return out
}

// MaxInFlight is the most requests served at once.
func (s *fakeServer) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

func (s *fakeServer) serveModels(w http.ResponseWriter, r *http.Request) {
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

func (s *fakeServer) serveStream(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var parsed fakeBody
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
	record := &fakeRequest{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Parsed: parsed, Admitted: admitted}
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
	if cfg.Fault == faultStatus {
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
		if cfg.Fault != faultNone && e == cfg.FaultAfter {
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
	if cfg.Fault != faultNone && cfg.FaultAfter >= events {
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
func (s *fakeServer) fault(rc *http.ResponseController, r *http.Request, send func(string) bool) {
	switch s.cfg.Fault {
	case faultReset:
		_ = rc.Flush()
		panic(http.ErrAbortHandler) // closes the connection without ending the chunked body
	case faultStall:
		select {
		case <-r.Context().Done():
		case <-s.quit:
		}
	case faultMalformed:
		send(`{"choices":[{"text":" w"}`)
	case faultErrorEvent:
		send(`{"error":{"object":"error","message":"engine died","type":"InternalServerError","param":null,"code":500}}`)
	}
}

// promptLength counts token ids, or the words of a text prompt.
func promptLength(b fakeBody) int {
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

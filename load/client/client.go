package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/llmslo/llmslo/load/workload"
)

// ClassServerError is the class of a stream that reported an error in an
// event ({"error": ...}), as vLLM does when generation fails mid-stream.
const ClassServerError ErrorClass = "server_error"

// Client defaults.
const (
	DefaultStallTimeout   = 60 * time.Second
	DefaultRequestTimeout = 10 * time.Minute
	DefaultMaxConns       = 4096
)

// maxErrorBody bounds how much of an error response's body is kept.
const maxErrorBody = 2 << 10

// Config configures a Client. Only BaseURL is required.
type Config struct {
	// BaseURL is the server's address, such as "http://127.0.0.1:8000",
	// with or without a trailing "/v1".
	BaseURL string
	// API is the endpoint requests go to; APICompletions by default.
	API   workload.API
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer". It never
	// appears in errors or in the config's printed form.
	APIKey string
	// StallTimeout bounds the wait for any byte of the response, reset on
	// every read (default 60s); past it the request is ClassStall.
	StallTimeout time.Duration
	// RequestTimeout bounds a whole request (default 10m); past it the
	// request is ClassTimeout.
	RequestTimeout time.Duration
	// MaxConns is the keep-alive pool size (default 4096). It does not cap
	// concurrency: a request beyond it opens a new connection.
	MaxConns int
	// ExtraBody is merged into every request body; its members replace the
	// client's own fields of the same name.
	ExtraBody map[string]any
	// Dial, when set, makes the client's connections in place of the
	// network (an in-process server; see internal/memnet).
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// String prints the config with the API key redacted.
func (c Config) String() string {
	key := ""
	if c.APIKey != "" {
		key = "[redacted]"
	}
	return fmt.Sprintf("{BaseURL:%s API:%s Model:%s APIKey:%s StallTimeout:%s RequestTimeout:%s MaxConns:%d ExtraBody:%d fields}",
		c.BaseURL, c.API, c.Model, key, c.StallTimeout, c.RequestTimeout, c.MaxConns, len(c.ExtraBody))
}

// GoString redacts the key from %#v as well.
func (c Config) GoString() string { return "Config" + c.String() }

// Client is a streaming client for OpenAI-compatible servers (vLLM and
// others). It implements Doer: each Do sends one streaming request and
// timestamps every event of the response on the monotonic clock. It is safe
// for concurrent use by thousands of goroutines.
//
// A token event is one whose choices[0] carries non-empty "text"
// (completions), or delta "content" or "reasoning_content" (chat); First and
// Last are the first and last of them, and ITL gets one gap per pair. When
// the server reports usage on every event (continuous usage stats), an event
// whose completion_tokens grew by more than one is a multi-token event. When
// usage comes only at the end, MultiTokenEvents is CompletionTokens minus
// TokenEvents: the tokens beyond one per event, exact when no event carried
// more than two, an upper bound otherwise. Without usage, CompletionTokens is
// TokenEvents and UsageReported is false.
type Client struct {
	base     string // normalised, without "/v1"
	endpoint string
	auth     string // "Bearer <key>", or empty
	key      string
	stall    time.Duration
	timeout  time.Duration
	url      *url.URL    // endpoint, parsed once
	header   http.Header // every request's, shared: the transport only reads it
	enc      *requestEncoder
	http     *http.Client
	tr       *http.Transport
	epoch    time.Time
	readers  sync.Pool // of *streamReader
	calls    sync.Pool // of *call
}

// NewClient returns a client for cfg.
func New(cfg Config) (*Client, error) {
	base, err := normaliseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.API == "" {
		cfg.API = workload.APICompletions
	}
	if cfg.API != workload.APICompletions && cfg.API != workload.APIChat {
		return nil, fmt.Errorf("load: API %q is neither %q nor %q", cfg.API, workload.APICompletions, workload.APIChat)
	}
	if cfg.StallTimeout <= 0 {
		cfg.StallTimeout = DefaultStallTimeout
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	enc, err := newRequestEncoder(cfg.API, cfg.Model, cfg.ExtraBody)
	if err != nil {
		return nil, err
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		// No proxy: a proxy would add its own queue to every figure.
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		MaxIdleConns:          cfg.MaxConns,
		MaxIdleConnsPerHost:   cfg.MaxConns,
		MaxConnsPerHost:       0,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 0,
		DisableCompression:    true,
		ForceAttemptHTTP2:     false,
	}
	if cfg.Dial != nil {
		tr.DialContext = cfg.Dial
	}
	c := &Client{
		base:     base,
		endpoint: base + "/v1/completions",
		key:      cfg.APIKey,
		stall:    cfg.StallTimeout,
		timeout:  cfg.RequestTimeout,
		enc:      enc,
		http:     &http.Client{Transport: tr},
		tr:       tr,
		epoch:    time.Now(),
	}
	if cfg.API == workload.APIChat {
		c.endpoint = base + "/v1/chat/completions"
	}
	if cfg.APIKey != "" {
		c.auth = "Bearer " + cfg.APIKey
	}
	if c.url, err = url.Parse(c.endpoint); err != nil {
		return nil, fmt.Errorf("load: endpoint %q: %v", c.endpoint, err)
	}
	c.header = http.Header{"Content-Type": {"application/json"}, "Accept": {"text/event-stream"}}
	if c.auth != "" {
		c.header["Authorization"] = []string{c.auth}
	}
	c.readers.New = func() any { return &streamReader{sse: NewSSEReader(nil)} }
	c.calls.New = newPooledCall
	return c, nil
}

func normaliseBaseURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("load: base URL %q: %v", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("load: base URL %q: want http://host[:port] or https://host[:port]", raw)
	}
	if u.User != nil {
		return "", errors.New("load: base URL must not carry credentials; use APIKey")
	}
	u.RawQuery, u.Fragment = "", ""
	p := strings.TrimRight(u.Path, "/")
	p = strings.TrimSuffix(p, "/v1")
	u.Path, u.RawPath = strings.TrimRight(p, "/"), ""
	return u.String(), nil
}

// BaseURL returns the server's address, normalised, without "/v1".
func (c *Client) BaseURL() string { return c.base }

// Close closes idle connections.
func (c *Client) Close() { c.tr.CloseIdleConnections() }

// The causes a request's context is cancelled with, so that the end of a
// request can be told apart from the caller's cancellation.
var (
	errStalled  = errors.New("no response bytes within the stall timeout")
	errTimedOut = errors.New("request timeout passed")
)

// activityReader tells the watchdog of every read that returns bytes, and
// keeps when the last read returned: the arrival time of every event whose
// last byte it brought. One clock reading a read, not one an event: the
// events of one read arrived together.
type activityReader struct {
	r   io.Reader
	dog *watchdog
	at  time.Time
}

func (a *activityReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	a.at = time.Now()
	if n > 0 {
		a.dog.readAt(a.at)
	}
	return n, err
}

// Do sends req and fills out (all but out.Intended and out.OnFirst, which
// the caller owns). It returns when the stream ends, fails, or ctx is done.
func (c *Client) Do(ctx context.Context, req workload.Request, out *Outcome) {
	*out = Outcome{Request: req, Intended: out.Intended, OnFirst: out.OnFirst, ITL: out.ITL[:0]}
	if cap(out.ITL) == 0 && req.OutputTokens > 1 {
		out.ITL = make([]time.Duration, 0, min(req.OutputTokens-1, 1<<16))
	}
	c.do(ctx, req, out)
	if out.Err != nil {
		out.Err = c.redact(out.Err)
	}
	if out.Message != "" && c.key != "" {
		out.Message = strings.ReplaceAll(out.Message, c.key, "[redacted]")
	}
}

// Prepare encodes the request's body ahead of its send (dispatch.Preparer),
// so that the encoding of a long prompt is not paid as send lag.
func (c *Client) Prepare(req *workload.Request) {
	req.Body = c.enc.encode(make([]byte, 0, 64+8*max(len(req.PromptIDs), len(req.Prompt)/4)), *req)
}

func (c *Client) do(parent context.Context, req workload.Request, out *Outcome) {
	body, bp := req.Body, (*[]byte)(nil)
	if len(body) == 0 {
		bp = bodyPool.Get().(*[]byte)
		body = c.enc.encode((*bp)[:0], req)
	}
	k := c.newCall(body)
	defer func() {
		// WroteRequest marks the body's last byte written, reported apart
		// from the send (a user waits for it too). The hook runs on the
		// transport's goroutine, possibly after do has returned; a body
		// not yet written then stays with the transport, and so does the
		// call.
		w := k.written.Load()
		if w != 0 {
			out.Written = c.epoch.Add(time.Duration(w))
		}
		if bp != nil && w != 0 && cap(body) <= 1<<20 {
			*bp = body[:0]
			bodyPool.Put(bp)
		}
		k.release()
	}()

	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	// The trace goes in with the request's context: adding it later would
	// copy the request again.
	hreq := k.request.WithContext(httptrace.WithClientTrace(ctx, &k.trace))

	k.dog.start(c.epoch, c.stall, c.timeout, cancel)

	// Sent is taken as the request is handed to the transport, its body
	// already encoded: what follows is writing. A new connection's setup
	// then counts as the server's time, not as send lag: a server slow to
	// accept must not look like a saturated client. The transport is
	// called directly: http.Client would copy the headers for redirects
	// that a streaming POST to vLLM never gets.
	out.Sent = time.Now()
	resp, err := c.tr.RoundTrip(hreq)
	if err != nil {
		out.Class, out.Err = c.classifyContext(parent, ctx, ClassConnect), fmt.Errorf("POST %s: %w", c.endpoint, err)
		if out.Class == ClassConnect && clientLimit(err) {
			out.Class, out.Sent = ClassClientLimit, time.Time{}
		}
		return
	}
	defer resp.Body.Close()
	k.dog.read()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		out.Class = HTTPStatusClass(resp.StatusCode)
		out.Err = fmt.Errorf("HTTP %d from %s: %s", resp.StatusCode, c.endpoint, bytes.TrimSpace(msg))
		out.Message = serverMessage(msg)
		if isShed(resp.StatusCode, out.Message) {
			out.Class = ClassShed
		}
		return
	}

	sr := c.readers.Get().(*streamReader)
	k.act.r = resp.Body
	sr.sse.Reset(&k.act)
	sr.tmpl.reset()
	defer func() {
		if cap(sr.sse.buf) <= 1<<20 && cap(sr.sse.data) <= 1<<20 && cap(sr.tmpl.buf) <= 1<<20 {
			sr.sse.Reset(nil)
			c.readers.Put(sr)
		}
	}()
	if c.readStream(parent, ctx, sr, &k.act, out) {
		// After [DONE], read the end of the body so the connection returns
		// to the pool, but only briefly: a server that keeps the body open
		// must not hold up a finished request.
		k.dog.draining()
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	}
}

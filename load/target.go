package load

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/workload"
)

// Target kinds, as a report names them.
const (
	KindSim  = "sim"  // the simulator, in the measuring process
	KindVLLM = "vllm" // a container started for the run
	KindURL  = "url"  // a server that is already running
)

// Target is a server to measure. The faces fill it: URLTarget for a server
// that is already running, ContainerTarget for one started in a container,
// and package vllmsim/simtarget's Sim for the simulator, so that package load
// links no simulator and no container library.
type Target interface {
	// Start starts or reaches the server and says how to reach it; the
	// Endpoint's Stop releases what Start started.
	Start(ctx context.Context) (*Endpoint, error)
}

// Variable is a Target that can be started again with vLLM serve flags
// added: what a sweep over server variants needs (tune.Search.Variants). A
// server that is already running cannot.
type Variable interface {
	Target
	WithFlags(flags []string) (Target, error)
}

// Endpoint is a started target: how to reach it and what is known of it.
type Endpoint struct {
	Kind  string // KindSim, KindVLLM or KindURL
	URL   string // base URL, without /v1
	Model string // the model requests carry; empty: the first one the server lists
	// APIKey is sent as a bearer token. It never appears in a report, a
	// log or an error.
	APIKey string
	// MaxModelLen and MaxNumSeqs are the server's limits when the target
	// knows them (the simulator does); zero: ask GET /v1/models for the
	// first, and leave the second unknown.
	MaxModelLen int
	MaxNumSeqs  int
	// KVCacheTokens is the KV cache's capacity in tokens when the target
	// knows it (the simulator does); zero: read vllm:cache_config_info.
	KVCacheTokens int
	// Dial, when set, makes every connection to the target in place of the
	// network: the simulator in this process, on in-memory connections.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// VirtualTime says the target runs on the clock of a testing/synctest
	// bubble, which only the runtime's own timers advance: the dispatcher
	// then waits on them alone (dispatch.WaitTimer).
	VirtualTime bool
	// Stop releases what Start started; nil when there is nothing to stop.
	Stop func() error

	http *http.Transport // httpClient's, when Dial is set: closed by Close
}

// Info describes the target for a report. It carries no secret.
func (e *Endpoint) Info() report.TargetInfo {
	return report.TargetInfo{Kind: e.Kind, URL: redactURL(e.URL), Model: e.Model}
}

// Close stops what the target started, once.
func (e *Endpoint) Close() error {
	if e.http != nil {
		e.http.CloseIdleConnections()
	}
	if e.Stop == nil {
		return nil
	}
	err := e.Stop()
	e.Stop = nil
	return err
}

// checkHealth asks /v1/models, which every OpenAI-compatible server has, so
// that a wrong URL or key fails before the first step. The same answer
// names the model when none was given, and its context length (vLLM's
// max_model_len) when the target does not know it yet.
func (e *Endpoint) checkHealth(ctx context.Context) error {
	c, err := e.client(workload.APICompletions, 0, 0, 0)
	if err != nil {
		return err
	}
	defer c.Close()
	cards, err := c.ModelCards(ctx)
	if err != nil {
		return fmt.Errorf("target %s does not answer GET /v1/models: %w", redactURL(e.URL), err)
	}
	if e.Model == "" {
		if len(cards) == 0 {
			return fmt.Errorf("target %s lists no model", redactURL(e.URL))
		}
		e.Model = cards[0].ID
	}
	for _, m := range cards {
		if m.ID == e.Model && e.MaxModelLen == 0 {
			e.MaxModelLen = m.MaxModelLen
		}
	}
	return nil
}

// client builds the streaming client for the target; maxConns sizes its
// keep-alive pool to the in-flight cap when there is one (0: the default).
func (e *Endpoint) client(api workload.API, maxConns int, stall, timeout time.Duration) (*client.Client, error) {
	return client.New(client.Config{BaseURL: e.URL, API: api, Model: e.Model, APIKey: e.APIKey, MaxConns: maxConns,
		StallTimeout: stall, RequestTimeout: timeout, Dial: e.Dial})
}

// sendWait is how the dispatcher waits for a send's time at this target.
func (e *Endpoint) sendWait() dispatch.WaitMode {
	if e.VirtualTime {
		return dispatch.WaitTimer
	}
	return dispatch.WaitFine
}

// httpClient is the client for /metrics, /tokenize and /reset_prefix_cache.
func (e *Endpoint) httpClient() *http.Client {
	var next http.RoundTripper = http.DefaultTransport
	if e.Dial != nil {
		if e.http == nil {
			e.http = &http.Transport{DialContext: e.Dial, DisableCompression: true}
		}
		next = e.http
	}
	if e.APIKey == "" {
		return &http.Client{Timeout: 30 * time.Second, Transport: next}
	}
	return &http.Client{Timeout: 30 * time.Second, Transport: bearer{key: e.APIKey, next: next}}
}

type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}

// redactURL drops user information and query values from a URL before it
// is shown.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User = nil
	q := u.Query()
	for k := range q {
		q.Set(k, "REDACTED")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x = strings.TrimSpace(x); x != "" {
			return x
		}
	}
	return ""
}

// TargetFunc is a function that is a Target: a server a program starts in
// its own way.
type TargetFunc func(ctx context.Context) (*Endpoint, error)

// Start calls f.
func (f TargetFunc) Start(ctx context.Context) (*Endpoint, error) { return f(ctx) }

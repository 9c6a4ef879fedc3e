package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
)

// Target kinds.
const (
	TargetSim  = "sim"  // the in-process simulator (default)
	TargetVLLM = "vllm" // a container started by TargetSpec.Container
	TargetURL  = "url"  // a server that is already running
)

// Environment variables that choose a target in go test.
const (
	EnvTarget    = "SLOTEST_TARGET"     // sim, vllm or a URL
	EnvVLLMImage = "SLOTEST_VLLM_IMAGE" // image for the vllm target
	EnvModel     = "SLOTEST_MODEL"      // model to serve (vllm) or to request (URL)
	EnvAPIKey    = "LLMSLO_API_KEY"     // bearer token for a URL target
	envOpenAIKey = "OPENAI_API_KEY"     // read when LLMSLO_API_KEY is unset
	defaultImage = "vllm/vllm-openai:latest"
)

// TargetSpec says which server to measure.
type TargetSpec struct {
	// Target is "sim", "vllm" or an http(s) URL. Empty means sim.
	Target string
	// Model is the model name requests carry. Empty: the first model the
	// server lists. For the vllm target it is also the model to serve.
	Model string
	// APIKey is sent as a bearer token; empty reads LLMSLO_API_KEY, then
	// OPENAI_API_KEY. It never appears in a report, a log or an error.
	APIKey string
	// Sim configures the simulator target.
	Sim vllmsim.Config
	// VLLMImage is the vllm target's image; empty reads SLOTEST_VLLM_IMAGE,
	// then vllm/vllm-openai:latest.
	VLLMImage string
	// Container starts the vllm target's container. Each face sets its own:
	// slotest one built on testcontainers-go (containers/vllm), the llmslo
	// command one that calls the Docker API directly
	// (containers/vllm/dockerrun), so that package load links neither and the
	// command does not link the testing package.
	Container ContainerStarter
	// VLLMArgs are vLLM serve flags the vllm target's container gets, after
	// the starter's own (ContainerRequest.Args).
	VLLMArgs []string
}

// ContainerStarter starts a vLLM-compatible server in a container and
// waits until it is healthy.
type ContainerStarter interface {
	StartContainer(ctx context.Context, req ContainerRequest) (StartedContainer, error)
}

// ContainerStarterFunc is a function that is a ContainerStarter.
type ContainerStarterFunc func(ctx context.Context, req ContainerRequest) (StartedContainer, error)

// StartContainer calls f.
func (f ContainerStarterFunc) StartContainer(ctx context.Context, req ContainerRequest) (StartedContainer, error) {
	return f(ctx, req)
}

// ContainerRequest is what the vllm target asks of a ContainerStarter.
type ContainerRequest struct {
	Image string // an image that takes vLLM's serve flags
	Model string // the model to serve
	// DevMode sets VLLM_SERVER_DEV_MODE=1, so that the prefix cache can be
	// reset before each step.
	DevMode bool
	// Args are vLLM serve flags for this start, after the starter's own: a
	// server variant of a variant sweep.
	Args []string
}

// StartedContainer is a healthy server in a container.
type StartedContainer struct {
	URL   string       // base URL, without /v1
	Model string       // the name requests carry
	Stop  func() error // stops and removes the container
}

// Target is a server ready to measure. Close releases what StartTarget
// started.
type Target struct {
	Kind  string
	URL   string // base URL, without /v1
	Model string

	apiKey      string
	maxModelLen int // known for the simulator: requests are clipped to fit
	maxNumSeqs  int // known for the simulator: what verdict.Binding compares with
	close       func() error
}

// Info describes the target for a report. It carries no secret.
func (t *Target) Info() report.TargetInfo {
	return report.TargetInfo{Kind: t.Kind, URL: redactURL(t.URL), Model: t.Model}
}

// Close stops a simulator or a container the target started; a URL target
// has nothing to stop.
func (t *Target) Close() error {
	if t.close == nil {
		return nil
	}
	err := t.close()
	t.close = nil
	return err
}

// StartTarget starts or reaches the target the spec names. A target asked
// for by name that cannot be had is an error, never a silent fallback.
func StartTarget(ctx context.Context, spec TargetSpec) (*Target, error) {
	kind := strings.TrimSpace(spec.Target)
	switch {
	case kind == "" || kind == TargetSim:
		return startSim(spec)
	case kind == TargetVLLM:
		return startVLLM(ctx, spec)
	case strings.HasPrefix(kind, "http://") || strings.HasPrefix(kind, "https://"):
		return reachURL(ctx, spec, kind)
	}
	return nil, fmt.Errorf("unknown target %q: want sim, vllm or an http(s) URL", kind)
}

func startSim(spec TargetSpec) (*Target, error) {
	cfg := spec.Sim
	if spec.Model != "" && cfg.Model == "" {
		cfg.Model = spec.Model
	}
	srv, err := vllmsim.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("simulator: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("simulator: %w", err)
	}
	srv.Listener = ln
	srv.Start()
	model := firstNonEmpty(srv.Config.ServedModelName, srv.Config.Model)
	return &Target{Kind: TargetSim, URL: srv.URL, Model: model, maxModelLen: srv.Config.MaxModelLen, maxNumSeqs: srv.Config.MaxNumSeqs,
		close: func() error { srv.Close(); return nil }}, nil
}

func startVLLM(ctx context.Context, spec TargetSpec) (*Target, error) {
	img := firstNonEmpty(spec.VLLMImage, os.Getenv(EnvVLLMImage), defaultImage)
	model := firstNonEmpty(spec.Model, os.Getenv(EnvModel))
	if model == "" {
		return nil, fmt.Errorf("the vllm target needs a model: set %s or the Model option", EnvModel)
	}
	if spec.Container == nil {
		return nil, errors.New("the vllm target has no container starter (TargetSpec.Container; slotest and the llmslo command set one)")
	}
	c, err := spec.Container.StartContainer(ctx, ContainerRequest{Image: img, Model: model, DevMode: true, Args: spec.VLLMArgs})
	if err != nil {
		return nil, fmt.Errorf("start vllm target from %s: %w", img, err)
	}
	return &Target{Kind: TargetVLLM, URL: c.URL, Model: firstNonEmpty(c.Model, model), apiKey: spec.APIKey, close: c.Stop}, nil
}

func reachURL(ctx context.Context, spec TargetSpec, raw string) (*Target, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("target %q is not a URL", redactURL(raw))
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
	key := firstNonEmpty(spec.APIKey, os.Getenv(EnvAPIKey), os.Getenv(envOpenAIKey))
	t := &Target{Kind: TargetURL, URL: u.String(), Model: spec.Model, apiKey: key}
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := t.checkHealth(hctx); err != nil {
		return nil, err
	}
	return t, nil
}

// checkHealth asks /v1/models, which every OpenAI-compatible server has, so
// that a wrong URL or key fails before the first step. The same answer
// names the model when none was given, and its context length (vLLM's
// max_model_len) when the target does not know it yet.
func (t *Target) checkHealth(ctx context.Context) error {
	c, err := t.client(workload.APICompletions, 0, 0, 0)
	if err != nil {
		return err
	}
	defer c.Close()
	cards, err := c.ModelCards(ctx)
	if err != nil {
		return fmt.Errorf("target %s does not answer GET /v1/models: %w", redactURL(t.URL), err)
	}
	if t.Model == "" {
		if len(cards) == 0 {
			return fmt.Errorf("target %s lists no model", redactURL(t.URL))
		}
		t.Model = cards[0].ID
	}
	for _, m := range cards {
		if m.ID == t.Model && t.maxModelLen == 0 {
			t.maxModelLen = m.MaxModelLen
		}
	}
	return nil
}

// client builds the streaming client for the target; maxConns sizes its
// keep-alive pool to the in-flight cap when there is one (0: the default).
func (t *Target) client(api workload.API, maxConns int, stall, timeout time.Duration) (*client.Client, error) {
	return client.New(client.Config{BaseURL: t.URL, API: api, Model: t.Model, APIKey: t.apiKey, MaxConns: maxConns,
		StallTimeout: stall, RequestTimeout: timeout})
}

// httpClient is the client for /metrics, /tokenize and /reset_prefix_cache.
func (t *Target) httpClient() *http.Client {
	if t.apiKey == "" {
		return &http.Client{Timeout: 30 * time.Second}
	}
	return &http.Client{Timeout: 30 * time.Second, Transport: bearer{key: t.apiKey, next: http.DefaultTransport}}
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

// redactURL drops user information from a URL before it is shown.
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

package vllmsim

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmslo/llmslo/vllmsim/drive"
	"github.com/llmslo/llmslo/vllmsim/engine"
	"github.com/llmslo/llmslo/vllmsim/metrics"
	"github.com/llmslo/llmslo/vllmsim/wire"
)

// Server is a simulated vLLM server listening on a loopback port, used as an
// httptest.Server is.
type Server struct {
	// URL is the base URL, "http://127.0.0.1:PORT", once started.
	URL string
	// Listener is where the server accepts connections.
	Listener net.Listener
	// Config is the configuration in force, defaults filled in.
	Config Config

	http      *http.Server
	loop      *drive.Loop
	metrics   *metrics.Metrics
	readyAt   time.Time
	created   int64
	arrivals  atomic.Uint64
	closing   chan struct{}
	handlers  sync.WaitGroup
	closeOnce sync.Once
	started   bool
	viaStart  bool
	serveErr  chan error
	mu        sync.Mutex // guards isClosing against handlers.Add
	isClosing bool
	// streamError is the data of an in-stream error event, in the
	// configured error format.
	streamError []byte
	fingerprint string // system_fingerprint (fingerprint.go)
}

// New makes a server that is not yet listening; it reports a Config that is
// invalid.
func New(cfg Config) (*Server, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	eng, err := engine.New(c.engineConfig())
	if err != nil {
		return nil, err
	}
	s := &Server{Config: c, closing: make(chan struct{}), created: time.Now().Unix(), serveErr: make(chan error, 1),
		streamError: wire.StreamErrorBody(c.ErrorFormat), fingerprint: c.fingerprint()}
	// The metrics read the loop's engine only when scraped, once it is set.
	s.metrics = metrics.New(metricsConfig(c), func() engine.Stats { return s.loop.Stats() })
	s.loop = drive.New(drive.Config{Engine: eng, Metrics: s.metrics, Frontend: newFrontend(c), Output: newOutput(c), Drift: c.driftFactor(),
		Jitter: c.StepJitter, JitterSeed: c.Seed,
		MaxQueuedReqs: c.MaxNumQueuedReqs, MaxQueuedTokens: c.MaxNumQueuedTokens})
	s.http = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	return s, nil
}

// NewUnstartedServer returns a server on a fresh 127.0.0.1 port that has
// not started serving; call Start. It panics when cfg is invalid or no
// port can be had, as httptest.NewUnstartedServer does.
func NewUnstartedServer(cfg Config) *Server {
	s, err := New(cfg)
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("vllmsim: failed to listen on a port: %v", err))
	}
	s.Listener = ln
	return s
}

// NewServer starts and returns a server. The caller must Close it.
func NewServer(cfg Config) *Server {
	s := NewUnstartedServer(cfg)
	s.Start()
	return s
}

// Start starts serving on s.Listener.
func (s *Server) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		panic("vllmsim: Server already started")
	}
	s.URL = "http://" + s.Listener.Addr().String()
	s.begin()
	s.viaStart = true
	ln := s.Listener
	addr := s.closeWhileLoading(ln)
	go func() {
		err := s.serveWhenReady(ln, addr)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.serveErr <- err
	}()
}

// begin starts the engine loop; s.mu is held.
func (s *Server) begin() {
	s.started = true
	s.readyAt = time.Now().Add(s.Config.Faults.StartupDelay)
	s.loop.Start()
}

// Serve serves on ln until Close; it returns nil after Close.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.started || s.isClosing {
		s.mu.Unlock()
		return errors.New("vllmsim: Server already started or closed")
	}
	s.Listener = ln
	s.URL = "http://" + ln.Addr().String()
	s.begin()
	addr := s.closeWhileLoading(ln)
	s.mu.Unlock()
	err := s.serveWhenReady(ln, addr)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// ListenAndServe serves cfg on cfg.Host:cfg.Port until ctx ends, then shuts
// down. It writes a startup line, as vLLM does, to log (when not nil).
func ListenAndServe(ctx context.Context, cfg Config, log io.Writer) error {
	s, err := New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(s.Config.Host, fmt.Sprint(s.Config.Port)))
	if err != nil {
		return fmt.Errorf("vllmsim: %w", err)
	}
	if log != nil {
		fmt.Fprintf(log, "INFO:     Serving model %s (profile %s, max_num_seqs %d, max_num_batched_tokens %d, %d KV blocks of %d)\n",
			s.Config.servedName(), s.Config.Profile.Name, s.Config.MaxNumSeqs, s.Config.MaxNumBatchedTokens,
			s.Config.NumGPUBlocks, s.Config.BlockSize)
		for _, f := range s.Config.IgnoredFlags {
			fmt.Fprintf(log, "INFO:     %s has no effect on the simulator; ignored\n", f)
		}
		fmt.Fprintf(log, "INFO:     Uvicorn running on http://%s (Press CTRL+C to quit)\n", ln.Addr())
	}
	s.Listener = ln
	s.Start()
	select {
	case <-ctx.Done():
		s.Close()
		if log != nil {
			fmt.Fprintln(log, "INFO:     Shutting down")
		}
		return nil
	case err := <-s.serveErr:
		s.serveErr <- err // for Close
		s.Close()
		return err
	}
}

// Close stops serving, ends every open stream, stops the engine and waits
// for every goroutine the server started.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.isClosing = true
		started, viaStart := s.started, s.viaStart
		s.mu.Unlock()
		close(s.closing)
		_ = s.http.Close()
		s.handlers.Wait()
		if started {
			s.loop.Stop()
		}
		if viaStart {
			<-s.serveErr
		}
	})
}

// Stats returns the engine's totals and gauges.
func (s *Server) Stats() engine.Stats {
	return s.loop.Stats()
}

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", s.handleHealth)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("GET /version", s.handleVersion)
	mux.Handle("GET /metrics", s.metricsHandler())
	mux.HandleFunc("POST /v1/completions", s.tracked(func(w http.ResponseWriter, r *http.Request) { s.handleGenerate(w, r, false) }))
	mux.HandleFunc("POST /v1/chat/completions", s.tracked(func(w http.ResponseWriter, r *http.Request) { s.handleGenerate(w, r, true) }))
	if s.Config.DevMode {
		mux.HandleFunc("POST /reset_prefix_cache", s.handleResetPrefixCache)
	}
	mux.HandleFunc("POST /tokenize", s.handleTokenize)
	if s.Config.APIKey == "" {
		return mux
	}
	want := "Bearer " + string(s.Config.APIKey)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1") && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte(want)) != 1 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"Unauthorized"}`))
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// tracked counts a handler in s.handlers so Close can wait for it.
func (s *Server) tracked(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.isClosing {
			s.mu.Unlock()
			s.writeError(w, http.StatusServiceUnavailable, "server is shutting down")
			return
		}
		s.handlers.Add(1)
		s.mu.Unlock()
		defer s.handlers.Done()
		h(w, r)
	}
}

func (s *Server) ready() bool { return !time.Now().Before(s.readyAt) }

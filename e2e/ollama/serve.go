package ollamae2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// ModelName is the name the tiny model is created under.
const ModelName = "tiny"

// Config sets how the server is started; the zero value is the tests'.
type Config struct {
	// Parallel is how many requests the server runs at once
	// (OLLAMA_NUM_PARALLEL); default 2.
	Parallel int
	// NumCtx is each request's context in tokens (the Modelfile's
	// num_ctx); default 1024.
	NumCtx int
}

// Server is an Ollama server started for a test, serving the tiny model
// on loopback from its own models directory.
type Server struct {
	URL   string // base URL, without /v1
	Model string
	bin   string
	dir   string
	cmd   *exec.Cmd
	log   *os.File

	killOnce sync.Once
	exited   chan struct{}
}

// Start builds (or finds) the binary, starts `ollama serve` on a free
// loopback port, writes the tiny model, creates it from a Modelfile and
// loads it. Stop (or Kill) ends it and everything it started.
func Start(ctx context.Context, dir string, cfg Config) (*Server, error) {
	if cfg.Parallel == 0 {
		cfg.Parallel = 2
	}
	if cfg.NumCtx == 0 {
		cfg.NumCtx = 1024
	}
	bin, _, err := Binary()
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://127.0.0.1:" + strconv.Itoa(port), Model: ModelName, bin: bin, dir: dir, exited: make(chan struct{})}
	if err := s.serve(port, cfg); err != nil {
		return nil, err
	}
	if err := s.createModel(ctx, cfg); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) env(port int) []string {
	return append(os.Environ(),
		"OLLAMA_HOST=127.0.0.1:"+strconv.Itoa(port),
		"OLLAMA_MODELS="+filepath.Join(s.dir, "models"),
		"HOME="+s.dir, // its key pair and history, kept out of the user's home
		"OLLAMA_KEEP_ALIVE=-1",
		"OLLAMA_MAX_LOADED_MODELS=1",
		"OLLAMA_NOPRUNE=1",
	)
}

// serve starts `ollama serve` in a process group of its own (its model
// runners are its children, and go with it) and waits until it answers.
func (s *Server) serve(port int, cfg Config) error {
	log, err := os.Create(filepath.Join(s.dir, "ollama.log"))
	if err != nil {
		return err
	}
	s.log = log
	s.cmd = exec.Command(s.bin, "serve")
	s.cmd.Env = append(s.env(port), "OLLAMA_NUM_PARALLEL="+strconv.Itoa(cfg.Parallel))
	s.cmd.Stdout, s.cmd.Stderr = log, log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s serve: %w", s.bin, err)
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(s.URL + "/api/version")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.exited:
			return fmt.Errorf("ollama serve exited at start: %s", s.Log())
		case <-time.After(100 * time.Millisecond):
		}
	}
	s.Stop()
	return fmt.Errorf("ollama serve did not answer in 60 s: %s", s.Log())
}

// createModel writes the GGUF file, creates the model from a Modelfile
// with `ollama create`, and loads it with a one-token generation, so that
// the first measured request does not wait for the load.
func (s *Server) createModel(ctx context.Context, cfg Config) error {
	gguf := filepath.Join(s.dir, "tiny.gguf")
	if err := WriteTinyModel(gguf, 1); err != nil {
		return err
	}
	modelfile := filepath.Join(s.dir, "Modelfile")
	text := fmt.Sprintf("FROM %s\nPARAMETER num_ctx %d\nPARAMETER num_thread 1\n", gguf, cfg.NumCtx)
	if err := os.WriteFile(modelfile, []byte(text), 0o644); err != nil {
		return err
	}
	port := s.URL[len("http://127.0.0.1:"):]
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, s.bin, "create", ModelName, "-f", modelfile)
	p, _ := strconv.Atoi(port)
	cmd.Env = s.env(p)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ollama create %s: %w\n%s\n%s", ModelName, err, tail(string(out), 2000), s.Log())
	}
	_, err := s.Generate(ctx, "load", 1)
	return err
}

// Timings are what Ollama's native API reports of one generation, in its
// own clock: prompt evaluation and generation, and their token counts.
type Timings struct {
	PromptEvalCount    int           `json:"prompt_eval_count"`
	PromptEvalDuration time.Duration `json:"prompt_eval_duration"`
	EvalCount          int           `json:"eval_count"`
	EvalDuration       time.Duration `json:"eval_duration"`
	TotalDuration      time.Duration `json:"total_duration"`
	LoadDuration       time.Duration `json:"load_duration"`
}

// Generate runs one greedy generation of up to n tokens through the
// native POST /api/generate and returns Ollama's own timings of it.
func (s *Server) Generate(ctx context.Context, prompt string, n int) (Timings, error) {
	body, _ := json.Marshal(map[string]any{"model": s.Model, "prompt": prompt, "stream": false,
		"options": map[string]any{"num_predict": n, "temperature": 0}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/api/generate", bytes.NewReader(body))
	if err != nil {
		return Timings{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Timings{}, err
	}
	defer resp.Body.Close()
	var t Timings
	if resp.StatusCode != http.StatusOK {
		return t, fmt.Errorf("POST /api/generate: %s: %s", resp.Status, s.Log())
	}
	return t, json.NewDecoder(resp.Body).Decode(&t)
}

// Kill ends the server and its runners at once, as a crash would.
func (s *Server) Kill() {
	s.killOnce.Do(func() {
		if s.cmd != nil && s.cmd.Process != nil {
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.exited
		}
		if s.log != nil {
			s.log.Close()
		}
	})
}

// Stop asks the server to shut down, and kills what is left after 5 s.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(5 * time.Second):
		}
	}
	s.Kill()
}

// Log is the end of the server's log, for failures.
func (s *Server) Log() string {
	b, err := os.ReadFile(filepath.Join(s.dir, "ollama.log"))
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	return "server log:\n" + tail(string(b), 4000)
}

// freePort asks the kernel for a loopback port no one listens on.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("not a TCP address")
	}
	return addr.Port, nil
}

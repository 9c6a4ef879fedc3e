package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// `llmslo sim` takes vLLM's serve arguments, announces where it listens as
// vLLM does, serves, and stops cleanly when its context ends.
func TestSimServesAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- runSim(ctx, []string{"serve", "test/model", "--port=0", "--max-num-seqs", "4", "--profile", "instant"}, io.Discard, pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	url := ""
	for sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), "Uvicorn running on "); ok {
			url = strings.Fields(after)[0]
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if url == "" {
		t.Fatal("no startup line")
	}
	resp, err := http.Post(url+"/v1/completions", "application/json",
		strings.NewReader(`{"model":"test/model","prompt":"a b","max_tokens":2}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	cancel()
	select {
	case c := <-code:
		if c != exitPass {
			t.Fatalf("exit %d after shutdown, want 0", c)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("sim did not stop after its context ended")
	}
}

func TestSimRejectsUnknownFlags(t *testing.T) {
	var stderr bytes.Buffer
	if c := runSim(context.Background(), []string{"--model", "m", "--tensor-parallel-sizes", "2"}, io.Discard, &stderr); c != exitUsage {
		t.Fatalf("exit %d, want %d", c, exitUsage)
	}
	if !strings.Contains(stderr.String(), "unknown flag --tensor-parallel-sizes") {
		t.Fatalf("stderr %q does not name the flag", stderr.String())
	}
}

// startSim runs `llmslo sim args` until the test ends and returns the
// address of its startup line and the lines before it.
func startSim(t *testing.T, args ...string) (addr string, log []string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- runSim(ctx, args, io.Discard, pw)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if c := <-code; c != exitPass {
			t.Errorf("exit %d after shutdown", c)
		}
	})
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		log = append(log, sc.Text())
		if _, after, ok := strings.Cut(sc.Text(), "Uvicorn running on http://"); ok {
			addr = strings.Fields(after)[0]
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if addr == "" {
		t.Fatalf("no startup line in %q", log)
	}
	return addr, log
}

// Outside a container `llmslo sim` listens on loopback; $LLMSLO_SIM_HOST,
// which the simulator's image sets to 0.0.0.0, moves the default to every
// interface, as vLLM's own default is; --host still wins over it.
func TestSimHostDefault(t *testing.T) {
	addr, log := startSim(t, "serve", "test/model", "--port=0", "--profile", "instant")
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("without %s: listening on %s, want loopback", hostEnv, addr)
	}
	if !strings.Contains(strings.Join(log, "\n"), "GPU KV cache size: 480000 tokens") {
		t.Errorf("the startup log does not size the KV cache: %q", log)
	}
	t.Setenv(hostEnv, "0.0.0.0")
	addr, _ = startSim(t, "serve", "test/model", "--port=0", "--profile", "instant")
	if !strings.HasPrefix(addr, "0.0.0.0:") && !strings.HasPrefix(addr, "[::]:") {
		t.Errorf("with %s=0.0.0.0: listening on %s, want every interface", hostEnv, addr)
	}
	_, port, _ := strings.Cut(addr, "]:")
	if port == "" {
		_, port, _ = strings.Cut(addr, ":")
	}
	resp, err := http.Get("http://127.0.0.1:" + port + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	addr, _ = startSim(t, "--host", "127.0.0.1", "--port=0", "--profile", "instant")
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("--host 127.0.0.1 with %s set: listening on %s", hostEnv, addr)
	}
}

// The model and the GPU decide what is simulated, and an unknown model is
// a usage error that lists the known ones.
func TestSimModelAndGPU(t *testing.T) {
	_, log := startSim(t, "Qwen/Qwen3-30B-A3B", "--gpu", "h200", "--port=0")
	all := strings.Join(log, "\n")
	for _, want := range []string{"Simulating Qwen/Qwen3-30B-A3B on 1×h200", "max_num_seqs 1024", "GPU KV cache size:"} {
		if !strings.Contains(all, want) {
			t.Errorf("startup log %q lacks %q", log, want)
		}
	}
	var stderr bytes.Buffer
	if c := runSim(context.Background(), []string{"acme/model-x", "--gpu", "h100", "--port=0"}, io.Discard, &stderr); c != exitUsage {
		t.Fatalf("unknown model on a named GPU: exit %d, want %d", c, exitUsage)
	}
	if !strings.Contains(stderr.String(), `unknown model "acme/model-x"`) || !strings.Contains(stderr.String(), "llama-3.1-8b") {
		t.Errorf("stderr %q does not name the model and the known ones", stderr.String())
	}
}

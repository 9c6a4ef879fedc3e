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

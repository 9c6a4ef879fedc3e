// Command fakevllm is a test fixture: a minimal server that takes the flags
// the vllm module passes and fails the way vLLM fails on bad input, so that
// start failures can be tested without the simulator or a GPU.
//
// It answers GET /health with 200 and exits 2 with a message on stderr for an
// unknown flag or a malformed value. With --print-env-and-exit it writes the
// environment variables named by the flag's value to its log, then exits 1,
// which lets a test check that a secret in the container's logs is redacted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	fs := flag.NewFlagSet("fakevllm", flag.ContinueOnError)
	model := fs.String("model", "", "model to serve")
	host := fs.String("host", "127.0.0.1", "address to listen on")
	port := fs.String("port", "8000", "port to listen on")
	fs.String("served-model-name", "", "name clients use")
	fs.Int("max-num-seqs", 256, "batch size limit")
	fs.Int("block-size", 16, "KV block size")
	printEnv := fs.String("print-env-and-exit", "", "comma-separated variables to print before exiting 1")
	if err := fs.Parse(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "fakevllm: error: %v\n", err)
		os.Exit(2)
	}
	if *printEnv != "" {
		for _, name := range strings.Split(*printEnv, ",") {
			fmt.Fprintf(os.Stderr, "fakevllm: %s=%s\n", name, os.Getenv(name))
		}
		fmt.Fprintln(os.Stderr, "fakevllm: error: failing on request")
		os.Exit(1)
	}
	if *model == "" {
		fmt.Fprintln(os.Stderr, "fakevllm: error: --model is required")
		os.Exit(2)
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {})
	srv := &http.Server{Addr: net.JoinHostPort(*host, *port), Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	fmt.Fprintf(os.Stderr, "fakevllm: serving %s on %s\n", *model, srv.Addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(os.Stderr, "fakevllm: error: %v\n", err)
		os.Exit(1)
	}
}

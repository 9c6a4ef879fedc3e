// Command fakevllm is a test fixture: a vLLM stand-in that prints the
// environment variables named by --print-env-and-exit to its log, then exits
// 1, so that a test can check that a secret in a container's logs is
// redacted. Printing its environment is what no server, the simulator
// included, may do; everything else a test needs from a vLLM server the
// simulator (vllmsim) provides.
//
// It takes the flags the vllm module passes and exits 2 with a message on
// stderr for an unknown flag or a malformed value, as vLLM does.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	fs := flag.NewFlagSet("fakevllm", flag.ContinueOnError)
	fs.String("model", "", "model to serve")
	fs.String("host", "127.0.0.1", "address to listen on")
	fs.String("port", "8000", "port to listen on")
	fs.String("served-model-name", "", "name clients use")
	fs.Int("max-num-seqs", 256, "batch size limit")
	fs.Int("block-size", 16, "KV block size")
	printEnv := fs.String("print-env-and-exit", "", "comma-separated variables to print before exiting 1")
	if err := fs.Parse(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "fakevllm: error: %v\n", err)
		os.Exit(2)
	}
	if *printEnv == "" {
		fmt.Fprintln(os.Stderr, "fakevllm: error: only --print-env-and-exit is supported; serve with the simulator")
		os.Exit(2)
	}
	for _, name := range strings.Split(*printEnv, ",") {
		fmt.Fprintf(os.Stderr, "fakevllm: %s=%s\n", name, os.Getenv(name))
	}
	fmt.Fprintln(os.Stderr, "fakevllm: error: failing on request")
	os.Exit(1)
}

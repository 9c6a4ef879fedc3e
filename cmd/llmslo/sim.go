package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/llmslo/llmslo/vllmsim"
)

func init() {
	register("sim", command{
		summary: "serve the vLLM simulator; takes `vllm serve` flags",
		run:     runSim,
	})
}

// runSim serves the simulator until ctx ends (SIGINT or SIGTERM). It takes
// the same arguments as `vllm serve`, so that one command line or container
// spec drives either.
func runSim(ctx context.Context, args []string, _, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "help" {
			simUsage(stderr)
			return exitPass
		}
	}
	cfg, err := vllmsim.ParseServeArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "llmslo sim: %v\n", err)
		simUsage(stderr)
		return exitUsage
	}
	if err := vllmsim.ListenAndServe(ctx, cfg, stderr); err != nil {
		fmt.Fprintf(stderr, "llmslo sim: %v\n", err)
		return exitUsage
	}
	return exitPass
}

func simUsage(w io.Writer) {
	fmt.Fprintf(w, `usage: llmslo sim [serve] [MODEL] [flags]
vLLM serve flags:
  --model NAME                 model to serve (default %s)
  --served-model-name NAME     name clients use (default: the model)
  --host HOST --port PORT      where to listen (default %s:%d)
  --max-model-len N            context length (default %d)
  --max-num-seqs N             sequences per step (default %d)
  --max-num-batched-tokens N   tokens per step (default %d)
  --block-size N               tokens per KV block (default %d)
  --num-gpu-blocks-override N  KV blocks (default %d)
  --enable-prefix-caching | --no-enable-prefix-caching   (default: on)
  --seed N                     seed of early stops and faults
  --api-key KEY                require "Authorization: Bearer KEY" on /v1/ paths
  (GPU placement flags such as --gpu-memory-utilization, --tensor-parallel-size,
   --dtype, --trust-remote-code are accepted and ignored)
simulator flags:
  --profile NAME               step-time profile: %s (default %s)
  --fault-error-rate F --fault-error-status CODE
  --fault-disconnect-rate F --fault-disconnect-after TOKENS
  --fault-stall-rate F --fault-stall-after TOKENS --fault-stall-for DURATION
  --fault-startup-delay DURATION
`, vllmsim.DefaultModel, vllmsim.DefaultHost, vllmsim.DefaultPort, vllmsim.DefaultMaxModelLen,
		vllmsim.DefaultMaxNumSeqs, vllmsim.DefaultMaxNumBatchedTokens, vllmsim.DefaultBlockSize,
		vllmsim.DefaultNumGPUBlocks, strings.Join(vllmsim.ProfileNames(), ", "), vllmsim.DefaultProfile)
}

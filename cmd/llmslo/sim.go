package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/engine"
)

func init() {
	register("sim", command{
		summary: "serve the vLLM simulator; takes `vllm serve` flags",
		run:     runSim,
	})
}

// hostEnv names the listening host used when --host is not given. The
// simulator's image sets it to 0.0.0.0, so that, as vllm/vllm-openai does,
// the container listens on all its interfaces; started directly on a
// machine, `llmslo sim` keeps to loopback unless told otherwise.
const hostEnv = "LLMSLO_SIM_HOST"

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
	if h := os.Getenv(hostEnv); h != "" {
		// A default that any --host in args overrides: the last wins.
		serve := 0
		if len(args) > 0 && args[0] == "serve" {
			serve = 1
		}
		args = append(append(append([]string(nil), args[:serve]...), "--host", h), args[serve:]...)
	}
	cfg, err := vllmsim.ParseServeArgs(args)
	if err != nil {
		// The error last: a container's log keeps its last lines.
		simUsage(stderr)
		fmt.Fprintf(stderr, "llmslo sim: %v\n", err)
		return exitUsage
	}
	if os.Getenv(vllmsim.DevModeEnv) == "1" {
		cfg.DevMode = true // as vLLM reads it
	}
	lines, err := vllmsim.Describe(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "llmslo sim: %v\n", err)
		return exitUsage
	}
	for _, l := range lines {
		fmt.Fprintf(stderr, "INFO:     %s\n", l)
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
  --model NAME                 model to serve: a Hugging Face name the simulator knows, or a
                               directory or config.json path (default %s, Llama 3.1 8B's shape)
  --served-model-name NAME     name clients use (default: the model)
  --host HOST --port PORT      where to listen (default %s:%d; $%s, set to 0.0.0.0 in the
                               simulator's image, replaces the default host)
  --tensor-parallel-size N     GPUs the model is split across (default 1)
  --quantization fp8|awq|gptq  weight precision (default: the checkpoint's, from its name or config.json)
  --kv-cache-dtype auto|fp8    KV cache precision (default auto: 16-bit)
  --gpu-memory-utilization F   share of each GPU's memory for weights, activations and KV cache (default %g)
  --max-model-len N            context length (default: the model's; %d for the default model)
  --max-num-seqs N             sequences per step (default %d on GPUs of 70 GiB or more but the A100, else 256)
  --max-num-batched-tokens N   tokens per step (default %d on those GPUs, else 2048)
  --performance-mode MODE      balanced (default), interactivity, or throughput (doubles both limits)
  --enable-chunked-prefill | --no-enable-chunked-prefill   (default: on)
  --block-size N               tokens per KV block (default %d)
  --num-gpu-blocks-override N  KV blocks (default: what the GPU's memory holds)
  --enable-prefix-caching | --no-enable-prefix-caching   (default: on)
  --seed N                     seed of early stops and faults
  --api-key KEY                require "Authorization: Bearer KEY" on /v1/ paths
  (--dtype, --pipeline-parallel-size, --trust-remote-code and other flags that only load or
   place the real model are accepted and ignored)
simulator flags:
  --gpu NAME                   GPU simulated: %s (default %s)
  --profile NAME               step-time profile: %s (default: the roofline
                               model of the model on the GPU)
  --step-time-scale F          multiply every modelled step time by F (default 1)
  --drift sine:10%%:2m|step:10%%@TIME   steps slower with the wall clock, every simulator alike
  --step-jitter 5%%             each step up to 5%% slower, drawn from --seed (docs/simulator.md)
  --frontend-overhead D        API server's time a request before the engine sees it, one request
                               at a time (default %v, %v with --engine-v0; none with the
                               hand-fit profiles, the default server's included)
  --frontend-per-token D       API server's time a prompt token, tokenizing (default %v; none
                               with the hand-fit profiles)
  --no-frontend                no API server time (as vLLM's offline LLM class)
  --async-scheduling | --no-async-scheduling   plan each step while the last runs, so a request
                               arriving mid-step waits one step more (default: on, as vLLM V1)
  --output-overhead D --output-per-seq D   API server's time for each step's outputs, and for
                               each request's token in them (docs/simulator.md)
  --error-format openai|legacy error answers as today's vLLM ({"error": {...}}, the default) or
                               as vLLM 0.10.0 and before ({"object": "error", ...})
  --engine-v0                  vLLM 0.6's V0 engine: no step while requests are taken in; without
                               chunked prefill, waiting prompts before decodes
  --fault-error-rate F --fault-error-status CODE
  --fault-disconnect-rate F --fault-disconnect-after TOKENS
  --fault-stall-rate F --fault-stall-after TOKENS --fault-stall-for DURATION
  --fault-startup-delay DURATION
known models (any organisation, with -Instruct, -FP8, … suffixes):
  %s
`, vllmsim.DefaultModel, vllmsim.DefaultHost, vllmsim.DefaultPort, hostEnv, vllmsim.DefaultGPUMemoryUtilization,
		vllmsim.DefaultMaxModelLen, vllmsim.DefaultMaxNumSeqs, vllmsim.DefaultMaxNumBatchedTokens, vllmsim.DefaultBlockSize,
		strings.Join(engine.GPUNames(), ", "), vllmsim.DefaultGPU, strings.Join(engine.ProfileNames(), ", "),
		vllmsim.DefaultFrontendOverhead, vllmsim.V0FrontendOverhead, vllmsim.DefaultFrontendPerToken,
		strings.Join(engine.KnownModels(), ", "))
}

// Package vllm starts a vLLM OpenAI-compatible server (the vllm/vllm-openai
// image, or any image that takes vLLM's serve flags, such as the llmslo
// simulator built from Dockerfile.sim) as a container with testcontainers-go,
// in the style of testcontainers-go's own modules:
//
//	ctr, err := vllm.Run(ctx, "vllm/vllm-openai:v0.11.0",
//		vllm.WithModel("Qwen/Qwen3-0.6B"),
//		vllm.WithVLLMArgs("--max-num-seqs", "64"),
//		vllm.WithGPUs(vllm.AllGPUs),
//	)
//	defer testcontainers.TerminateContainer(ctr)
//	base, err := ctr.BaseURL(ctx) // "http://127.0.0.1:32768"
//
// Run waits until GET /health answers 200. A container that exits or never
// becomes healthy is removed, and the error carries its last log lines.
// Secrets handed to the container (HF_TOKEN, any variable whose name looks
// like a credential, the value of --api-key) are redacted from every error and log line this package
// produces.
//
// # Command line
//
// Recent vllm/vllm-openai images have the entrypoint ["vllm", "serve"]; older
// ones ran ["python3", "-m", "vllm.entrypoints.openai.api_server"]. Both
// accept "--model M", whereas only the first takes the model as a positional
// argument, so the container's command is always
//
//	--model M [--served-model-name N...] --host 0.0.0.0 --port 8000 [extra args...]
//
// Port 8000 is the port vLLM and the simulator listen on inside the container;
// the host port is chosen by Docker and read back by BaseURL. vLLM accepts
// several served model names; the simulator takes one.
//
// # Docker engines
//
// The client negotiates its API version with the engine (testcontainers-go
// v0.45.0 supports engines down to API 1.40, Docker 19.03), so an engine such
// as Docker 20.10 (API 1.41) needs no setting. Where negotiation must be
// bypassed, DOCKER_API_VERSION=1.41 pins the version. Where no registry can be
// reached, set TESTCONTAINERS_RYUK_DISABLED=true: the reaper image cannot be
// pulled, and this package removes what it started itself.
//
// Published ports are reached where testcontainers-go says (its
// TESTCONTAINERS_HOST_OVERRIDE setting included), with one correction: a
// process that looks containerised (it has /.dockerenv) is sent to the
// default gateway, which is wrong when the engine runs in the process's own
// network namespace; Run and BaseURL detect that case (the engine's bridge
// gateway is a local address) and use 127.0.0.1.
//
// The container's command line, environment, GPU requests and redaction are
// package serve's (containers/vllm/serve), which this package shares with
// containers/vllm/dockerrun.
//
// When not to use it: in a program rather than a test (testcontainers-go
// links the testing package; use containers/vllm/dockerrun, as the llmslo
// command does), against a vLLM server that is already running (point the
// load generator at its URL instead), or where Docker is unavailable (use
// the in-process simulator, package vllmsim).
package vllm

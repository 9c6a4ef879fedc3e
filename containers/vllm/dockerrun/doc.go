// Package dockerrun starts a vLLM OpenAI-compatible server (vllm/vllm-openai,
// or any image that takes vLLM's serve flags, such as the llmslo simulator
// built from Dockerfile.sim) as a container, through the Docker API alone:
//
//	ctr, err := dockerrun.Run(ctx, "vllm/vllm-openai:v0.11.0",
//		serve.WithModel("Qwen/Qwen3-0.6B"),
//		serve.WithGPUs(serve.AllGPUs),
//	)
//	if err != nil { ... } // a *serve.StartError, with the container's last log lines
//	defer ctr.Close()     // stops and removes it
//	base := ctr.BaseURL() // "http://127.0.0.1:32768"
//
// It is what a program uses where package containers/vllm (the same server
// through testcontainers-go) cannot be linked: testcontainers-go imports the
// testing package, and the llmslo command must not. The command line,
// environment, GPU requests and secret redaction are package serve's, shared
// with containers/vllm.
//
// Run pulls the image only when the engine does not have it (anonymously:
// log in with docker login is not consulted). It publishes port 8000 on a
// port of 127.0.0.1 that the engine chooses, waits until GET /health answers
// 200, and removes the container when it exits first or never becomes
// healthy. No secret handed to the container (HF_TOKEN, credential-like
// variables, the value of --api-key) appears in an error.
//
// When not to use it: in tests, where containers/vllm takes testcontainers'
// options and its reaper removes what a crashed test leaves; with an engine
// on another machine (DOCKER_HOST=tcp://elsewhere), whose 127.0.0.1 this
// process cannot reach; against a server that is already running (point the
// load generator at its URL).
package dockerrun

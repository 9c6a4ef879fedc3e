// Package serve describes a vLLM server's container without starting it:
// the serve command line (model, served names, extra flags), the
// environment (the Hugging Face token, development mode), the host settings
// (GPU device requests, the weights cache, --ipc=host), the check that the
// Docker engine can give GPUs at all, and the redaction of every secret
// handed to the container from errors and log lines.
//
// It is shared by the two ways llmslo starts such a container: package
// containers/vllm, a testcontainers-go module for tests, and package
// containers/vllm/dockerrun, which calls the Docker API directly so that a
// program (the llmslo command) need not link testcontainers-go, and with it
// the testing package.
//
//	s, err := serve.New(serve.WithModel("Qwen/Qwen3-0.6B"), serve.WithGPUs(serve.AllGPUs))
//	cmd := s.Command()                 // --model Qwen/Qwen3-0.6B --host 0.0.0.0 --port 8000
//	env := s.Environment(os.LookupEnv) // HF_TOKEN from the process, if set
//
// When not to use it: to start a container, use one of the two packages
// above; this one only says what the container needs.
package serve

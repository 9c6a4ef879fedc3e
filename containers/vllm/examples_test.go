package vllm_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/llmslo/llmslo/containers/vllm"
)

// Start a real vLLM on every GPU, with weights cached across runs and the
// Hugging Face token taken from the environment (never logged).
func ExampleRun() {
	ctx := context.Background()
	cache, err := os.UserCacheDir()
	if err != nil {
		log.Fatal(err)
	}
	ctr, err := vllm.Run(ctx, "vllm/vllm-openai:v0.11.0",
		vllm.WithModel("Qwen/Qwen3-0.6B"),
		vllm.WithServedModelName("qwen"),
		vllm.WithVLLMArgs("--max-num-seqs", "64", "--max-model-len", "4096"),
		vllm.WithGPUs(vllm.AllGPUs),
		vllm.WithHFCache(cache+"/huggingface"),
		vllm.WithDevMode(), // POST /reset_prefix_cache, for cold-cache measurements
	)
	defer func() {
		if err := testcontainers.TerminateContainer(ctr); err != nil {
			log.Print(err)
		}
	}()
	if err != nil {
		// A *vllm.StartError: the container's last log lines are in it.
		log.Print(err)
		return
	}
	base, err := ctr.BaseURL(ctx)
	if err != nil {
		log.Print(err)
		return
	}
	fmt.Println("OpenAI API at", base+"/v1", "serving", ctr.Model())
}

// Build the simulator's image from a checkout and start it as if it were
// vLLM: no GPU, no registry.
func ExampleBuildSimImage() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	img, err := vllm.BuildSimImage(ctx, ".", vllm.SimImage, os.Stderr)
	if err != nil {
		log.Print(err)
		return
	}
	ctr, err := vllm.Run(ctx, img,
		vllm.WithModel("meta-llama/Llama-3.1-8B-Instruct"),
		vllm.WithVLLMArgs("--max-num-seqs", "64", "--block-size", "16"),
		vllm.WithStartupTimeout(time.Minute),
	)
	defer func() { _ = testcontainers.TerminateContainer(ctr) }()
	if err != nil {
		log.Print(err)
		return
	}
	base, err := ctr.BaseURL(ctx)
	if err != nil {
		log.Print(err)
		return
	}
	resp, err := http.Get(base + "/v1/models")
	if err != nil {
		log.Print(err)
		return
	}
	_ = resp.Body.Close()
	fmt.Println(resp.Status)
}

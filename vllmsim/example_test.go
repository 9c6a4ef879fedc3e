package vllmsim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/llmslo/llmslo/vllmsim"
)

// A simulated vLLM server in a test, used as httptest.NewServer is.
func Example() {
	srv := vllmsim.NewServer(vllmsim.Config{ProfileName: "instant"})
	defer srv.Close()

	body := `{"model":"llmslo/sim-llama-3-8b","prompt":"the quick brown fox","max_tokens":4,"ignore_eos":true}`
	resp, err := http.Post(srv.URL+"/v1/completions", "application/json", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		panic(err)
	}
	fmt.Println(resp.StatusCode, out.Usage.PromptTokens, out.Usage.CompletionTokens, out.Choices[0].FinishReason)
	// Output: 200 4 4 length
}

// Serving on a port with vLLM's own flags, until the context ends.
func ExampleListenAndServe() {
	cfg, err := vllmsim.ParseServeArgs([]string{"serve", "Qwen/Qwen3-8B", "--port", "0", "--max-num-seqs", "64"})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	fmt.Println(cfg.Model, cfg.MaxNumSeqs, vllmsim.ListenAndServe(ctx, cfg, nil))
	// Output: Qwen/Qwen3-8B 64 <nil>
}

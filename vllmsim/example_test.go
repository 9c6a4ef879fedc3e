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

// The engine core runs in virtual time: the default profile's idle TTFT and
// TPOT for 1024 input and 256 output tokens (Llama 3.1 8B on an H100).
func ExampleEngine() {
	p, _ := vllmsim.Profile("default")
	eng, _ := vllmsim.NewEngine(vllmsim.EngineConfig{MaxNumSeqs: 256, MaxNumBatchedTokens: 8192,
		BlockSize: 16, NumBlocks: 30000, PrefixCaching: true, Profile: p})
	seq := vllmsim.NewSeq(1, make([]int32, 1024), 256)
	eng.Add(seq)
	var now, first time.Duration
	for !seq.Done() {
		b := eng.Schedule()
		now += b.Duration
		eng.Complete(b)
		if seq.Generated() == 1 && first == 0 {
			first = now
		}
	}
	fmt.Println("TTFT", first, "TPOT", ((now - first) / 255).Round(time.Microsecond))
	// Output: TTFT 26.840172ms TPOT 7.461ms
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

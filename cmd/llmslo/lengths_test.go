package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// halfWorkServer answers OpenAI completions with half the asked output,
// ignore_eos notwithstanding, and has no /tokenize and no /metrics.
func halfWorkServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			fmt.Fprint(w, `{"data":[{"id":"m","max_model_len":4096}]}`)
			return
		}
		var body struct {
			Prompt    []int `json:"prompt"`
			MaxTokens int   `json:"max_tokens"`
			Stream    bool  `json:"stream"`
		}
		if r.URL.Path != "/v1/completions" || json.NewDecoder(r.Body).Decode(&body) != nil {
			http.NotFound(w, r)
			return
		}
		out := max(body.MaxTokens/2, 1)
		usage := fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d}`, len(body.Prompt), out)
		if !body.Stream {
			fmt.Fprintf(w, `{"choices":[{"text":"w","finish_reason":"stop"}],"usage":%s}`, usage)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, strings.Repeat("data: {\"choices\":[{\"index\":0,\"text\":\" w\"}]}\n\n", out))
		fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":%s}\n\ndata: [DONE]\n\n", usage)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A server that ignores ignore_eos in the probe is refused before the load
// (exit 3), naming the flag; declared with it, the run passes and says the
// workload was lighter than asked.
func TestRunRefusesAServerThatEndsEarlyUnlessDeclared(t *testing.T) {
	url := halfWorkServer(t)
	args := []string{"run", "--target", url, "--fixture", "fixed:16:64", "--rates", "20", "--arrival", "constant",
		"--duration", "1s", "--warmup", "0s", "--slo", "ttft.p50<=5s", "--hazard-off", "client_saturation,too_few_samples", "--quiet"}
	code, _, stderr := runArgs(t, args...)
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "does not honour ignore_eos")
	assert.Contains(t, stderr, "--lengths-advisory")

	code, stdout, stderr := runArgs(t, append(args, "--lengths-advisory")...)
	assert.Equal(t, exitPass, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stdout, "the workload was lighter than asked: 20 of 20 requests (100.0%)")
	assert.Contains(t, stdout, "32.0 output tokens a request given for 64.0 asked")
}

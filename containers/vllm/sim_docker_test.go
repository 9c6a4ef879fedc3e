package vllm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"

	"github.com/llmslo/llmslo/internal/dockergate"
	"github.com/llmslo/llmslo/vllmsim"
)

func httpGet(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, body
}

// streamed is what a streamed completion delivered.
type streamed struct {
	textChunks       int
	text             string
	done             bool
	completionTokens int
	promptTokens     int
}

func streamCompletion(t *testing.T, base, model string, maxTokens int) streamed {
	t.Helper()
	body, err := json.Marshal(map[string]any{
		"model": model, "prompt": "the quick brown fox jumps over the lazy dog", "max_tokens": maxTokens,
		"ignore_eos": true, "stream": true, "stream_options": map[string]any{"include_usage": true},
	})
	require.NoError(t, err)
	resp, err := http.Post(base+"/v1/completions", "application/json", strings.NewReader(string(body)))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("Content-Type"), "text/event-stream")

	var got streamed
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			got.done = true
			break
		}
		var chunk struct {
			Choices []struct {
				Text string `json:"text"`
			} `json:"choices"`
			Usage *struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		require.NoError(t, json.Unmarshal([]byte(data), &chunk), data)
		if len(chunk.Choices) > 0 && chunk.Choices[0].Text != "" {
			got.textChunks++
			got.text += chunk.Choices[0].Text
		}
		if chunk.Usage != nil {
			got.promptTokens = chunk.Usage.PromptTokens
			got.completionTokens = chunk.Usage.CompletionTokens
		}
	}
	require.NoError(t, sc.Err())
	return got
}

func TestRunSimulator(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	img := simImage(t)
	label, id := dockergate.Labelled(t, testcontainers.WithLabels)
	ctx := context.Background()
	cache := t.TempDir()

	start := time.Now()
	ctr, err := Run(ctx, img,
		WithModel("Qwen/Qwen3-0.6B"),
		WithServedModelName("qwen-sim"),
		WithVLLMArgs("--max-num-seqs", "64", "--block-size", "16", "--max-model-len", "4096",
			"--fault-startup-delay", "2s"),
		WithDevMode(),
		WithHFCache(cache),
		WithStartupTimeout(2*time.Minute),
		label,
	)
	started := time.Since(start)
	require.NoError(t, err)
	defer dockergate.AssertNoContainer(t, id)
	defer terminate(t, ctr)

	// The simulator answers 503 on /health for its first 2s: Run must have
	// waited for 200, not for the port.
	assert.GreaterOrEqual(t, started, 2*time.Second)

	base, err := ctr.BaseURL(ctx)
	require.NoError(t, err)
	assert.Regexp(t, `^http://[^/]+:[0-9]+$`, base)
	assert.Equal(t, "qwen-sim", ctr.Model())

	status, _ := httpGet(t, base+"/health")
	assert.Equal(t, http.StatusOK, status)

	status, body := httpGet(t, base+"/v1/models")
	require.Equal(t, http.StatusOK, status)
	var models struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &models), string(body))
	require.NotEmpty(t, models.Data)
	assert.Equal(t, "qwen-sim", models.Data[0].ID)

	got := streamCompletion(t, base, ctr.Model(), 12)
	assert.True(t, got.done, "stream ended with data: [DONE]")
	assert.Equal(t, 12, got.completionTokens)
	assert.Positive(t, got.promptTokens)
	assert.GreaterOrEqual(t, got.textChunks, 2, "tokens arrived as separate events")
	assert.NotEmpty(t, got.text)

	resp, err := http.Post(base+"/reset_prefix_cache", "", nil)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	inspect, err := ctr.Inspect(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"--model", "Qwen/Qwen3-0.6B", "--served-model-name", "qwen-sim",
		"--host", "0.0.0.0", "--port", "8000",
		"--max-num-seqs", "64", "--block-size", "16", "--max-model-len", "4096", "--fault-startup-delay", "2s"},
		inspect.Config.Cmd)
	assert.Equal(t, []string{"/llmslo", "sim"}, inspect.Config.Entrypoint)
	assert.Contains(t, inspect.Config.Env, "VLLM_SERVER_DEV_MODE=1")
	assert.Contains(t, inspect.HostConfig.Binds, cache+":/root/.cache/huggingface")
}

func TestRunSimulatorBadArgument(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	img := simImage(t)
	tests := []struct {
		name string
		args []string
	}{
		{"malformed value", []string{"--max-num-seqs", "banana"}},
		{"unknown flag", []string{"--no-such-flag", "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			label, id := dockergate.Labelled(t, testcontainers.WithLabels)
			// What the simulator says about these arguments, as it prints it.
			_, parseErr := vllmsim.ParseServeArgs(append([]string{"--model", "m"}, tt.args...))
			require.Error(t, parseErr)
			want := "llmslo sim: " + parseErr.Error()

			start := time.Now()
			ctr, err := Run(context.Background(), img, WithModel("m"), WithVLLMArgs(tt.args...),
				WithStartupTimeout(5*time.Minute), label)
			elapsed := time.Since(start)
			assert.Nil(t, ctr)
			require.Error(t, err)
			var se *StartError
			require.ErrorAs(t, err, &se)
			assert.Contains(t, err.Error(), want)
			assert.Contains(t, err.Error(), "container exited with code 3")
			assert.Contains(t, se.Logs, want)
			assert.NoError(t, se.CleanupErr)
			// An exit is noticed on the next health poll, not at the timeout.
			assert.Less(t, elapsed, 2*time.Minute)
			dockergate.AssertNoContainer(t, id)
		})
	}
}

func TestRunSimulatorNeverHealthy(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	img := simImage(t)
	label, id := dockergate.Labelled(t, testcontainers.WithLabels)
	ctr, err := Run(context.Background(), img, WithModel("Qwen/Qwen3-0.6B"),
		WithVLLMArgs("--fault-startup-delay", "1h"), WithStartupTimeout(3*time.Second), label)
	assert.Nil(t, ctr)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
	var se *StartError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, strings.Join(se.Logs, "\n"), "Uvicorn running on", "the server's own log lines are attached")
	dockergate.AssertNoContainer(t, id)
}

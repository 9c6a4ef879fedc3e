package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/llmslo/llmslo/load/workload"
)

// HasTokenize reports whether the server answers vLLM's POST /tokenize
// with a count, for a plain prompt (a base model without a chat template
// has no count for messages).
func HasTokenize(ctx context.Context, hc *http.Client, baseURL, model string) bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	b, _ := json.Marshal(map[string]any{"model": model, "prompt": "probe"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/tokenize", bytes.NewReader(b))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var out struct {
		Count *int `json:"count"`
	}
	return resp.StatusCode/100 == 2 && json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out) == nil && out.Count != nil
}

// ProbeUsage is what a probe's response reported of its lengths.
type ProbeUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Probe sends one unstreamed request to the server at baseURL for out
// output tokens of model with prompt (token ids or text) and returns the status, the server's message
// when it failed, and its usage when it did not. Asked for more than one
// token, it sets the length fields the load sends (min_tokens, ignore_eos).
func Probe(ctx context.Context, hc *http.Client, baseURL, model, apiKey string, api workload.API, prompt any, out int) (status int, msg string, usage ProbeUsage, err error) {
	body := map[string]any{"model": model, "max_tokens": out, "stream": false}
	if out > 1 {
		body["min_tokens"], body["ignore_eos"] = out, true
	}
	path := "/v1/completions"
	if api == workload.APIChat {
		path = "/v1/chat/completions"
		body["messages"] = []map[string]any{{"role": "user", "content": prompt}}
		if out > 1 {
			body["max_completion_tokens"] = out
		}
	} else {
		body["prompt"] = prompt
	}
	b, err := json.Marshal(body)
	if err != nil {
		return 0, "", usage, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+path, bytes.NewReader(b))
	if err != nil {
		return 0, "", usage, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", usage, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, "", usage, err
	}
	if resp.StatusCode/100 != 2 {
		msg := ServerMessage(data)
		if apiKey != "" { // a server that echoes the request must not put the key in a report
			msg = strings.ReplaceAll(msg, apiKey, "[redacted]")
		}
		return resp.StatusCode, msg, usage, nil
	}
	var answer struct {
		Usage ProbeUsage `json:"usage"`
	}
	_ = json.Unmarshal(data, &answer) // a body without usage leaves zeros, which the caller judges
	return resp.StatusCode, "", answer.Usage, nil
}

// WithoutURL is a transport error without the URL it names, which may
// carry credentials in its user information or query: the report keeps it.
func WithoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

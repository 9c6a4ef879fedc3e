package vllmapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"golang.org/x/time/rate"
)

// HTTPTokenizer counts tokens with a server's POST /tokenize (vLLM's shape):
// the text is sent as one user message, so the count includes the chat
// template as /v1/chat/completions would apply it.
type HTTPTokenizer struct {
	url    string
	model  string
	client *http.Client
	limit  *rate.Limiter
}

// TokenizeRate bounds the calls an HTTPTokenizer makes: prompt calibration
// runs before a step, against the server about to be measured, and a burst
// of thousands of /tokenize calls would still be loading its API server
// when the step starts.
const TokenizeRate = 200 // calls per second

// NewHTTPTokenizer talks to the server at baseURL (its root or its /v1
// address); a nil client is http.DefaultClient. Give the client a transport
// that adds credentials if the server needs them.
func NewHTTPTokenizer(baseURL, model string, client *http.Client) *HTTPTokenizer {
	if client == nil {
		client = http.DefaultClient
	}
	base := strings.TrimSuffix(strings.TrimRight(baseURL, "/"), "/v1")
	return &HTTPTokenizer{url: base + "/tokenize", model: model, client: client,
		limit: rate.NewLimiter(TokenizeRate, TokenizeRate/10)}
}

type tokenizeRequest struct {
	Model    string            `json:"model,omitempty"`
	Messages []tokenizeMessage `json:"messages"`
}

type tokenizeMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// CountTokens implements workload.Tokenizer.
func (t *HTTPTokenizer) CountTokens(ctx context.Context, text string) (int, error) {
	return t.count(ctx, []tokenizeMessage{{Role: "user", Content: text}})
}

// count asks /tokenize for the prompt tokens of a conversation.
func (t *HTTPTokenizer) count(ctx context.Context, msgs []tokenizeMessage) (int, error) {
	if err := t.limit.Wait(ctx); err != nil {
		return 0, fmt.Errorf("tokenize: %w", err)
	}
	body, err := json.Marshal(tokenizeRequest{Model: t.model, Messages: msgs})
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("tokenize: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, fmt.Errorf("tokenize: reading the response: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return 0, fmt.Errorf("tokenize: HTTP %d: %.200s", resp.StatusCode, bytes.TrimSpace(data))
	}
	var out struct {
		Count *int `json:"count"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.Count == nil {
		return 0, fmt.Errorf("tokenize: want {\"count\": N}, got %.200q", data)
	}
	return *out.Count, nil
}

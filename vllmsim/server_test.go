package vllmsim

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/llmslo/llmslo/vllmsim/tokenizer"
	"github.com/llmslo/llmslo/vllmsim/wire"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	dto "github.com/prometheus/client_model/go"
)

func openaiClient(s *Server) openai.Client {
	return openai.NewClient(option.WithBaseURL(s.URL+"/v1/"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
}

// The official OpenAI Go client streams chat and completions and reads the
// usage chunk.
func TestOpenAIClientStreams(t *testing.T) {
	s := start(t, Config{ProfileName: "instant"})
	c := openaiClient(s)
	ctx := context.Background()

	chat := c.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:         DefaultModel,
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("tell me about the queue")},
		MaxTokens:     openai.Int(12),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	var acc openai.ChatCompletionAccumulator
	contentChunks := 0
	for chat.Next() {
		ch := chat.Current()
		acc.AddChunk(ch)
		if len(ch.Choices) > 0 && ch.Choices[0].Delta.Content != "" {
			contentChunks++
		}
	}
	if err := chat.Err(); err != nil {
		t.Fatal(err)
	}
	// 5 content tokens + 4 per message + 2.
	if acc.Usage.PromptTokens != 11 || acc.Usage.CompletionTokens != 12 || acc.Usage.TotalTokens != 23 {
		t.Fatalf("chat usage %+v, want 11 + 12 = 23", acc.Usage)
	}
	if contentChunks != 12 || len(Tokenize(acc.Choices[0].Message.Content)) != 12 {
		t.Fatalf("chat: %d content chunks, content %q; want 12 tokens", contentChunks, acc.Choices[0].Message.Content)
	}
	if acc.Choices[0].FinishReason != "length" || acc.Choices[0].Message.Role != "assistant" {
		t.Fatalf("chat finish %q role %q", acc.Choices[0].FinishReason, acc.Choices[0].Message.Role)
	}

	comp := c.Completions.NewStreaming(ctx, openai.CompletionNewParams{
		Model:         openai.CompletionNewParamsModel(DefaultModel),
		Prompt:        openai.CompletionNewParamsPromptUnion{OfArrayOfTokens: []int64{1, 2, 3, 4, 5, 6, 7}},
		MaxTokens:     openai.Int(9),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	textChunks, usage := 0, openai.CompletionUsage{}
	for comp.Next() {
		ch := comp.Current()
		if len(ch.Choices) > 0 && ch.Choices[0].Text != "" {
			textChunks++
		}
		if ch.Usage.TotalTokens > 0 {
			usage = ch.Usage
		}
	}
	if err := comp.Err(); err != nil {
		t.Fatal(err)
	}
	if textChunks != 9 || usage.PromptTokens != 7 || usage.CompletionTokens != 9 {
		t.Fatalf("completions: %d text chunks, usage %+v; want 9 and 7+9", textChunks, usage)
	}

	whole, err := c.Completions.New(ctx, openai.CompletionNewParams{
		Model:     openai.CompletionNewParamsModel(DefaultModel),
		Prompt:    openai.CompletionNewParamsPromptUnion{OfString: openai.String("one two three")},
		MaxTokens: openai.Int(4),
	})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Usage.PromptTokens != 3 || whole.Usage.CompletionTokens != 4 || len(Tokenize(whole.Choices[0].Text)) != 4 {
		t.Fatalf("non-streaming completion %+v", whole)
	}
	models, err := c.Models.List(ctx)
	if err != nil || len(models.Data) != 1 || models.Data[0].ID != DefaultModel {
		t.Fatalf("models %+v, %v", models, err)
	}
}

func TestErrorsInVLLMShape(t *testing.T) {
	s := start(t, Config{ProfileName: "instant", MaxModelLen: 100})
	cases := []struct {
		name, path string
		body       any
		status     int
		msg, param string
	}{
		{"bad json", "/v1/completions", `{"prompt": `, 400, "invalid JSON", ""},
		{"unknown model", "/v1/completions", map[string]any{"model": "nope", "prompt": "hi"}, 404, "The model `nope` does not exist.", "model"},
		{"too long", "/v1/completions", map[string]any{"prompt": textPrompt("w", 60), "max_tokens": 50}, 400,
			"maximum context length is 100 tokens. However, you requested 50 output tokens and your prompt contains at least 51 input tokens, for a total of at least 101 tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=51)", "input_tokens"},
		{"prompt too long", "/v1/completions", map[string]any{"prompt": textPrompt("w", 100)}, 400, "your request has 100 input tokens", "input_tokens"},
		{"empty prompt", "/v1/completions", map[string]any{"prompt": "   "}, 400, "The prompt cannot be empty.", ""},
		{"no messages", "/v1/chat/completions", map[string]any{"messages": []any{}}, 400, "at least one message", ""},
		{"bad max_tokens", "/v1/completions", map[string]any{"prompt": "a", "max_tokens": 0}, 400, "max_tokens must be at least 1", ""},
		{"unknown model tokenize", "/tokenize", map[string]any{"model": "nope", "prompt": "a"}, 404, "does not exist", "model"},
	}
	legacy := start(t, Config{ProfileName: "instant", MaxModelLen: 100, ErrorFormat: ErrorFormatLegacy})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Today's vLLM: {"error": {message, type, param, code}} and
			// nothing beside it.
			status, raw := postJSON(t, s.URL+c.path, c.body)
			var top map[string]json.RawMessage
			var e wire.APIError
			if err := json.Unmarshal(raw, &top); err != nil || json.Unmarshal(raw, &e) != nil || len(top) != 1 || e.Error == nil {
				t.Fatalf("error body %s is not the {\"error\": {...}} envelope", raw)
			}
			if i := e.Error; status != c.status || i.Code != c.status || i.Object != "" || i.Type != wire.ErrorType(c.status) || !strings.Contains(i.Message, c.msg) {
				t.Fatalf("status %d body %s; want %d with %q", status, raw, c.status, c.msg)
			}
			wantParam := `"param":null`
			if c.param != "" {
				wantParam = `"param":"` + c.param + `"`
			}
			if !strings.Contains(string(raw), wantParam) {
				t.Fatalf("body %s lacks %s", raw, wantParam)
			}
			// vLLM 0.10.0 and before: the flat object.
			status, raw = postJSON(t, legacy.URL+c.path, c.body)
			var flat wire.ErrorInfo
			top = nil
			if err := json.Unmarshal(raw, &flat); err != nil || json.Unmarshal(raw, &top) != nil || top["error"] != nil {
				t.Fatalf("legacy error body %s: %v", raw, err)
			}
			f := flat
			if status != c.status || f.Code != c.status || f.Object != "error" || f.Type != wire.ErrorType(c.status) || !strings.Contains(f.Message, c.msg) {
				t.Fatalf("legacy: status %d body %s; want %d with %q", status, raw, c.status, c.msg)
			}
		})
	}
}

// /tokenize counts exactly what the generation endpoints report as
// prompt_tokens.
func TestTokenizeMatchesUsage(t *testing.T) {
	s := start(t, Config{ProfileName: "instant"})
	msgs := []map[string]any{{"role": "system", "content": "be brief"}, {"role": "user", "content": []map[string]string{{"type": "text", "text": "what is a   KV cache?"}}}}
	_, raw := postJSON(t, s.URL+"/tokenize", map[string]any{"messages": msgs})
	var tok struct {
		Count       int     `json:"count"`
		MaxModelLen int     `json:"max_model_len"`
		Tokens      []int32 `json:"tokens"`
	}
	if err := json.Unmarshal(raw, &tok); err != nil {
		t.Fatal(err)
	}
	if tok.Count != 2+5+2*4+2 || len(tok.Tokens) != tok.Count || tok.MaxModelLen != DefaultMaxModelLen {
		t.Fatalf("tokenize chat: %s", raw)
	}
	_, raw = postJSON(t, s.URL+"/v1/chat/completions", map[string]any{"messages": msgs, "max_tokens": 2})
	var resp wire.ChatResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Usage.PromptTokens != tok.Count || resp.Object != "chat.completion" {
		t.Fatalf("chat prompt_tokens %d, tokenize %d", resp.Usage.PromptTokens, tok.Count)
	}
	_, raw = postJSON(t, s.URL+"/tokenize", map[string]any{"prompt": "héllo  wörld\tand\nmore"})
	if err := json.Unmarshal(raw, &tok); err != nil || tok.Count != 4 {
		t.Fatalf("tokenize text: %s", raw)
	}
	for _, id := range tok.Tokens {
		if id < tokenizer.MinWordID || id >= tokenizer.VocabSize {
			t.Fatalf("token id %d outside [%d, %d)", id, tokenizer.MinWordID, tokenizer.VocabSize)
		}
	}
	r := streamCompletion(t, s.URL, map[string]any{"prompt": []string{"héllo  wörld\tand\nmore"}, "max_tokens": 3,
		"stream_options": map[string]bool{"include_usage": true}})
	if r.err != nil || r.usage == nil || r.usage.PromptTokens != 4 || r.usage.CompletionTokens != 3 || r.tokens != 3 || !r.done {
		t.Fatalf("stream %+v", r)
	}
}

// Without ignore_eos a request stops at its pseudo-random EOS point, the
// same one for the same prompt, never beyond max_tokens. The end-of-sequence
// token is in completion_tokens and in no text, as in vLLM; min_tokens only
// holds it off; ignore_eos, or min_tokens equal to max_tokens, runs to
// max_tokens.
func TestEarlyStopIsDeterministic(t *testing.T) {
	s := start(t, Config{ProfileName: "instant", EOSMeanTokens: 20})
	lengths := map[int]bool{}
	run := func(body map[string]any) (texts, completion int) {
		body["stream_options"] = map[string]any{"include_usage": true}
		r := streamCompletion(t, s.URL, body)
		if r.usage == nil {
			t.Fatalf("no usage: %+v", r)
		}
		return r.tokens, r.usage.CompletionTokens
	}
	for i := range 20 {
		p := textPrompt("eos"+string(rune('a'+i)), 10)
		ta, a := run(map[string]any{"prompt": p, "max_tokens": 40})
		_, b := run(map[string]any{"prompt": p, "max_tokens": 40})
		if a != b || a < 1 || a > 40 {
			t.Fatalf("prompt %d: %d then %d tokens", i, a, b)
		}
		if a < 40 && ta != a-1 {
			t.Fatalf("prompt %d stopped at %d tokens with %d texts; want the EOS token without text", i, a, ta)
		}
		lengths[a] = true
		if _, c := run(map[string]any{"prompt": p, "max_tokens": 40, "ignore_eos": true}); c != 40 {
			t.Fatalf("ignore_eos gave %d; want 40", c)
		}
		if _, d := run(map[string]any{"prompt": p, "max_tokens": 40, "min_tokens": 40}); d != 40 {
			t.Fatalf("min_tokens 40 gave %d; want 40", d)
		}
		if _, e := run(map[string]any{"prompt": p, "max_tokens": 40, "min_tokens": 10}); e < min(a+10, 40) || e < 11 {
			t.Fatalf("min_tokens 10 gave %d (%d without); want the stop held off past 10", e, a)
		}
	}
	if len(lengths) < 5 {
		t.Fatalf("only %d distinct early-stop lengths over 20 prompts", len(lengths))
	}
}

func TestEndpoints(t *testing.T) {
	s := start(t, Config{ProfileName: "instant", ServedModelName: "served", Model: "org/base"})
	resp, err := http.Get(s.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(body) != 0 {
		t.Fatalf("/health %d %q", resp.StatusCode, body)
	}
	resp, _ = http.Get(s.URL + "/version")
	var v map[string]string
	_ = json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if v["version"] != DefaultVersion {
		t.Fatalf("/version %v", v)
	}
	resp, _ = http.Get(s.URL + "/v1/models")
	var m struct {
		Object string `json:"object"`
		Data   []struct {
			ID, Root string
		} `json:"data"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	if m.Object != "list" || len(m.Data) != 1 || m.Data[0].ID != "served" || m.Data[0].Root != "org/base" {
		t.Fatalf("/v1/models %+v", m)
	}
	if st, raw := postJSON(t, s.URL+"/v1/completions", map[string]any{"model": "org/base", "prompt": "a"}); st != 404 {
		t.Fatalf("the base name must not be served when --served-model-name is set: %d %s", st, raw)
	}
}

func TestMetricsExposeEveryName(t *testing.T) {
	s := start(t, Config{ProfileName: "instant"})
	r := streamCompletion(t, s.URL, map[string]any{"prompt": textPrompt("m", 40), "max_tokens": 5, "ignore_eos": true})
	if r.tokens != 5 {
		t.Fatalf("stream %+v", r)
	}
	fams := scrape(t, s.URL)
	for _, name := range MetricNames {
		f, ok := fams[name]
		if !ok {
			// The text format names a counter family without _total.
			f, ok = fams[strings.TrimSuffix(name, "_total")]
		}
		if !ok {
			t.Fatalf("/metrics lacks %s", name)
		}
		for _, m := range f.GetMetric() {
			if name != "vllm:admission_rejections_total" && !hasLabel(m, "engine", "0") {
				t.Fatalf("a series of %s lacks engine=\"0\"", name)
			}
		}
		if name != "vllm:cache_config_info" && !hasSeries(map[string]*dto.MetricFamily{name: f}, name, "model_name", DefaultModel, -1) {
			t.Fatalf("%s lacks model_name=%q", name, DefaultModel)
		}
	}
	if _, ok := fams["vllm:time_per_output_token_seconds"]; ok {
		t.Error("vllm:time_per_output_token_seconds is served; vLLM dropped it")
	}
	checks := map[string]float64{
		"vllm:prompt_tokens_total": 40, "vllm:generation_tokens_total": 5, "vllm:time_to_first_token_seconds": 1,
		"vllm:inter_token_latency_seconds": 4, "vllm:e2e_request_latency_seconds": 1, "vllm:request_queue_time_seconds": 1,
		"vllm:prefix_cache_queries_total": 40, "vllm:num_requests_running": 0, "vllm:kv_cache_usage_perc": 0,
		"vllm:request_prefill_time_seconds": 1, "vllm:request_decode_time_seconds": 1, "vllm:request_inference_time_seconds": 1,
		"vllm:num_requests_waiting_by_reason": 0, "vllm:prompt_tokens_cached_total": 0, "vllm:cache_config_info": 1,
		// The prompt's step (40 tokens, with the first generated token)
		// and four decode steps.
		"vllm:iteration_tokens_total": 5,
	}
	for name, want := range checks {
		if got := metricValue(fams, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}

// A client that goes away mid-stream is aborted in the engine.
func TestClientCancelAborts(t *testing.T) {
	s := start(t, Config{Profile: fastProfile})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/v1/completions",
		strings.NewReader(`{"prompt":"x y","max_tokens":5000,"ignore_eos":true,"stream":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	_, _ = resp.Body.Read(buf)
	cancel()
	resp.Body.Close()
	waitFor(t, func() bool {
		f := scrape(t, s.URL)
		return metricValue(f, "vllm:num_requests_running") == 0 && hasSeries(f, "vllm:request_success_total", "finished_reason", "abort", 1)
	})
}

// With --api-key, /v1/ paths need the bearer token, as in vLLM; the rest
// (health, metrics) stay open.
func TestAPIKey(t *testing.T) {
	s := start(t, Config{ProfileName: "instant", APIKey: "sk-test"})
	if st, raw := postJSON(t, s.URL+"/v1/completions", map[string]any{"prompt": "a"}); st != 401 || !strings.Contains(string(raw), "Unauthorized") {
		t.Fatalf("no key: %d %s", st, raw)
	}
	if r := streamCompletion(t, s.URL, map[string]any{"prompt": "a"}); r.status != 401 || strings.Contains(r.body, "sk-test") {
		t.Fatalf("no key, streaming: %d %s", r.status, r.body)
	}
	c := openai.NewClient(option.WithBaseURL(s.URL+"/v1/"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
	if _, err := c.Completions.New(context.Background(), openai.CompletionNewParams{
		Model: openai.CompletionNewParamsModel(DefaultModel), Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("a")},
		MaxTokens: openai.Int(1)}); err != nil {
		t.Fatalf("with the key: %v", err)
	}
	resp, err := http.Get(s.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/health needs no key, got %d", resp.StatusCode)
	}
}

// A client that stops reading never holds the engine up: its tokens are
// counted, not queued, and other streams carry on.
func TestSlowClientDoesNotStallEngine(t *testing.T) {
	s := start(t, Config{ProfileName: "instant", MaxModelLen: 1 << 21, NumGPUBlocks: 1 << 17})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/v1/completions",
		strings.NewReader(`{"prompt":"stuck","max_tokens":1000000,"ignore_eos":true,"stream":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close() // never read: the server's writes block once the socket fills
	// 300,000 tokens of about 180 bytes are 54 MB, far beyond any socket
	// buffer: the engine went on while the handler was blocked.
	waitFor(t, func() bool { return s.Stats().GeneratedTokens > 300_000 })
	r := streamCompletion(t, s.URL, map[string]any{"prompt": "other", "max_tokens": 100, "ignore_eos": true})
	if r.err != nil || r.tokens != 100 || !r.done {
		t.Fatalf("a second stream next to a stuck one: %+v", r)
	}
}

func TestServeOnListener(t *testing.T) {
	s, err := New(Config{ProfileName: "instant"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	waitFor(t, func() bool {
		resp, err := http.Get("http://" + ln.Addr().String() + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	s.Close()
	if err := <-done; err != nil {
		t.Fatalf("Serve returned %v after Close, want nil", err)
	}
}

package client

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmslo/llmslo/internal/testkit"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
)

func newTestClient(t testing.TB, base string, cfg Config) *Client {
	t.Helper()
	cfg.BaseURL = base
	if cfg.Model == "" {
		cfg.Model = testModel
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func tokenIDs(n int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = 1000 + 7*i
	}
	return ids
}

func within(t *testing.T, what string, got, want, tol time.Duration) {
	t.Helper()
	if got < want-tol || got > want+tol {
		t.Errorf("%s = %v, want %v ± %v", what, got, want, tol)
	}
}

// TestClientTiming measures a server with known timing, the simulator's
// paced streams: first token 50 ms after arrival, then one token every 5 ms.
// On an overloaded machine the server itself can miss its schedule (and then
// sends late events in a burst); such an attempt is not the known behaviour,
// so it is measured again, up to five times. Whatever the server did, the
// client's timestamps must match the server's writes.
func TestClientTiming(t *testing.T) {
	const (
		ttftWant = 50 * time.Millisecond
		itlWant  = 5 * time.Millisecond
		tokens   = 20
	)
	for _, api := range []workload.API{workload.APICompletions, workload.APIChat} {
		t.Run(string(api), func(t *testing.T) {
			srv := simServer(t, vllmsim.Config{Faults: vllmsim.Faults{PacedTTFT: ttftWant, PacedITL: itlWant}})
			c := newTestClient(t, srv.URL, Config{API: api})
			// The prompt length is the server's count: the 100 token ids, or
			// on the chat API the simulator's template around "hello there"
			// (2 words, 4 tokens per message, 2 at the end), which only the
			// usage can tell the client.
			wantPrompt := 100
			if api == workload.APIChat {
				wantPrompt = 2 + 4 + 2
			}
			for attempt := 1; ; attempt++ {
				before := len(srv.Requests())
				var ttft, serverTTFT, itl, tpot, arrivalLag, serverLate, carry []time.Duration
				for i := range 10 {
					var out Outcome
					c.Do(t.Context(), workload.Request{Index: i, PromptIDs: tokenIDs(100), Prompt: "hello there", OutputTokens: tokens}, &out)
					if !out.OK() {
						t.Fatalf("request %d: %s: %v", i, out.Class, out.Err)
					}
					if out.CompletionTokens != tokens || out.TokenEvents != tokens || out.PromptTokens != wantPrompt || !out.UsageReported || out.MultiTokenEvents != 0 {
						t.Fatalf("request %d: completion %d, events %d, prompt %d, usage %v, multi %d; want 20, 20, %d, true, 0",
							i, out.CompletionTokens, out.TokenEvents, out.PromptTokens, out.UsageReported, out.MultiTokenEvents, wantPrompt)
					}
					if len(out.ITL) != tokens-1 {
						t.Fatalf("request %d: %d ITL samples, want %d", i, len(out.ITL), tokens-1)
					}
					if out.Request.Index != i || out.Sent.IsZero() || out.First.Before(out.Sent) || out.Last.Before(out.First) {
						t.Fatalf("request %d: bad outcome timestamps or request: %+v", i, out)
					}
					ttft = append(ttft, out.First.Sub(out.Sent))
					itl = append(itl, out.ITL...)
					tpot = append(tpot, out.Last.Sub(out.First)/(tokens-1))

					rec := srv.Requests()[before+i]
					if len(rec.Writes) != tokens {
						t.Fatalf("request %d: %d token events on the wire, want %d", i, len(rec.Writes), tokens)
					}
					arrivalLag = append(arrivalLag, out.First.Sub(rec.Writes[0]), out.Last.Sub(rec.Writes[tokens-1]))
					serverTTFT = append(serverTTFT, rec.Writes[0].Sub(out.Sent))
					carry = append(carry, rec.Arrived.Sub(out.Sent))
					for k, w := range rec.Writes {
						serverLate = append(serverLate, w.Sub(rec.Arrived.Add(ttftWant+time.Duration(k)*itlWant)))
					}
				}
				// The client sees each event within a millisecond of its write.
				if lag := testkit.Median(arrivalLag); lag < 0 || lag > time.Millisecond {
					t.Fatalf("median lag from server write to client timestamp = %v, want under 1ms", lag)
				}
				if late := testkit.Median(serverLate); late > time.Millisecond && attempt < 5 {
					t.Logf("attempt %d: the server ran %v behind its own schedule; measuring again", attempt, late)
					continue
				}
				// TTFT from send holds the request's way to the server too,
				// which a busy machine (or the race detector) can stretch.
				if slow := testkit.Median(carry); slow > time.Millisecond && attempt < 5 {
					t.Logf("attempt %d: requests took %v to reach the server; measuring again", attempt, slow)
					continue
				}
				// The exact oracle is what the server did: its first write,
				// from the client's send, as its own record gives it. The
				// paced 50 ms holds to the server's timers, which a busy
				// machine can make a millisecond or two late; the median
				// lateness above is the ITL writes' more than the first's.
				within(t, "TTFT-from-send p50 against the server's first write", testkit.Median(ttft), testkit.Median(serverTTFT), time.Millisecond)
				within(t, "TTFT-from-send p50", testkit.Median(ttft), ttftWant, 5*time.Millisecond)
				within(t, "ITL p50", testkit.Median(itl), itlWant, time.Millisecond)
				within(t, "TPOT p50", testkit.Median(tpot), itlWant, time.Millisecond)
				t.Logf("attempt %d: TTFT p50 %v, ITL p50 %v, TPOT p50 %v, arrival lag p50 %v, way to the server p50 %v",
					attempt, testkit.Median(ttft), testkit.Median(itl), testkit.Median(tpot), testkit.Median(arrivalLag), testkit.Median(carry))
				return
			}
		})
	}
}

func TestClientRequestBody(t *testing.T) {
	// The simulator checks the key too, as vLLM --api-key does.
	srv := simServer(t, vllmsim.Config{APIKey: "sk-test-key"})
	text := "say \"hi\"\n\tand \\ bye \u00e9\u2028 \x01 \xff"
	ids := tokenIDs(10000)
	tests := []struct {
		name string
		api  workload.API
		req  workload.Request
	}{
		{"completions ids", workload.APICompletions, workload.Request{PromptIDs: ids, OutputTokens: 7}},
		{"completions text", workload.APICompletions, workload.Request{Prompt: text, OutputTokens: 7}},
		{"chat", workload.APIChat, workload.Request{Prompt: text, OutputTokens: 7}},
		{"no output length", workload.APICompletions, workload.Request{Prompt: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(srv.Requests())
			c := newTestClient(t, srv.URL+"/v1/", Config{API: tt.api, APIKey: "sk-test-key"})
			var out Outcome
			c.Do(t.Context(), tt.req, &out)
			if !out.OK() {
				t.Fatalf("%s: %v", out.Class, out.Err)
			}
			reqs := srv.Requests()
			if len(reqs) != before+1 {
				t.Fatalf("server saw %d requests, want 1", len(reqs)-before)
			}
			got := reqs[len(reqs)-1]
			var b sentBody
			if err := json.Unmarshal(got.Body, &b); err != nil {
				t.Fatalf("body %.300s: %v", got.Body, err)
			}
			if got.Header.Get("Authorization") != "Bearer sk-test-key" {
				t.Errorf("Authorization = %q", got.Header.Get("Authorization"))
			}
			if b.Model != "test-model" || !b.Stream || b.StreamOptions == nil || !b.StreamOptions.IncludeUsage || b.StreamOptions.ContinuousUsageStats {
				t.Errorf("model/stream/stream_options wrong: %s", got.Body)
			}
			wantPath := "/v1/completions"
			if tt.api == workload.APIChat {
				wantPath = "/v1/chat/completions"
			}
			if got.Path != wantPath {
				t.Errorf("path %q, want %q", got.Path, wantPath)
			}
			wantText := strings.ToValidUTF8(text, "\ufffd")
			switch {
			case tt.api == workload.APIChat:
				if len(b.Messages) != 1 || b.Messages[0].Role != "user" || b.Messages[0].Content != wantText {
					t.Errorf("messages = %+v", b.Messages)
				}
				if b.Prompt != nil {
					t.Errorf("chat body has a prompt: %s", b.Prompt)
				}
				if b.MaxCompletionTokens == nil || *b.MaxCompletionTokens != 7 {
					t.Errorf("max_completion_tokens missing or wrong: %s", got.Body)
				}
			case len(tt.req.PromptIDs) > 0:
				var sent []int
				if err := json.Unmarshal(b.Prompt, &sent); err != nil || !slices.Equal(sent, ids) {
					t.Errorf("prompt ids differ (%d sent, err %v)", len(sent), err)
				}
			default:
				var sent string
				if err := json.Unmarshal(b.Prompt, &sent); err != nil || sent != strings.ToValidUTF8(tt.req.Prompt, "\ufffd") {
					t.Errorf("prompt text = %q (err %v)", sent, err)
				}
			}
			if tt.req.OutputTokens == 0 {
				if b.MaxTokens != nil || b.MinTokens != nil || b.IgnoreEOS != nil || b.MaxCompletionTokens != nil {
					t.Errorf("length fields sent without an output length: %s", got.Body)
				}
				return
			}
			if b.MaxTokens == nil || *b.MaxTokens != 7 || b.MinTokens == nil || *b.MinTokens != 7 || b.IgnoreEOS == nil || !*b.IgnoreEOS {
				t.Errorf("max_tokens/min_tokens/ignore_eos wrong: %.300s", got.Body)
			}
			if tt.api == workload.APICompletions && (b.Temperature == nil || *b.Temperature != 0) {
				t.Errorf("temperature not 0: %.300s", got.Body)
			}
		})
	}
}

func TestClientExtraBodyOverrides(t *testing.T) {
	srv := simServer(t, vllmsim.Config{})
	c := newTestClient(t, srv.URL, Config{ExtraBody: map[string]any{"temperature": 0.5, "top_p": 0.9, "seed": 7}})
	var out Outcome
	c.Do(t.Context(), workload.Request{Prompt: "x", OutputTokens: 2}, &out)
	if !out.OK() {
		t.Fatalf("%s: %v", out.Class, out.Err)
	}
	body := string(srv.Requests()[0].Body)
	if strings.Count(body, `"temperature"`) != 1 || !strings.Contains(body, `"temperature":0.5`) ||
		!strings.Contains(body, `"top_p":0.9`) || !strings.Contains(body, `"seed":7`) {
		t.Errorf("body %s: want one temperature of 0.5, top_p and seed", body)
	}
	if !json.Valid([]byte(body)) {
		t.Errorf("body is not valid JSON: %s", body)
	}
}

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s/", "\x00\x1f\x7f", "é€𝄞", "\xff\xfe bad", "\u2028\u2029", "<&>"} {
		var got, want string
		if err := json.Unmarshal(appendJSONString(nil, s), &got); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		enc, _ := json.Marshal(s)
		_ = json.Unmarshal(enc, &want)
		if got != want {
			t.Errorf("%q: decodes to %q, encoding/json's to %q", s, got, want)
		}
	}
}

func TestClientMultiTokenEvents(t *testing.T) {
	// Continuous usage is asked for as vLLM takes it, in stream_options.
	continuous := Config{ExtraBody: map[string]any{"stream_options": map[string]any{"include_usage": true, "continuous_usage_stats": true}}}
	threePerEvent := vllmsim.Faults{MultiTokenRate: 1, MultiTokenSize: 3}
	tests := []struct {
		name      string
		faults    vllmsim.Faults
		client    Config
		wantEv    int
		wantMulti int
	}{
		// 10 tokens, 3 per event: events of 3,3,3,1.
		{"usage at the end", threePerEvent, Config{}, 4, 6},
		{"continuous usage", threePerEvent, continuous, 4, 3},
		{"one token per event", vllmsim.Faults{}, continuous, 10, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := simServer(t, vllmsim.Config{Faults: tt.faults})
			c := newTestClient(t, srv.URL, tt.client)
			var out Outcome
			c.Do(t.Context(), workload.Request{Prompt: "a b c", OutputTokens: 10}, &out)
			if !out.OK() || out.CompletionTokens != 10 || out.TokenEvents != tt.wantEv || out.MultiTokenEvents != tt.wantMulti || len(out.ITL) != tt.wantEv-1 {
				t.Fatalf("class %q, completion %d, events %d, multi %d, itl %d; want ok, 10, %d, %d, %d",
					out.Class, out.CompletionTokens, out.TokenEvents, out.MultiTokenEvents, len(out.ITL), tt.wantEv, tt.wantMulti, tt.wantEv-1)
			}
			if out.PromptTokens != 3 {
				t.Errorf("prompt tokens %d, want 3", out.PromptTokens)
			}
		})
	}
}

func TestClientReusesOutcome(t *testing.T) {
	srv := simServer(t, vllmsim.Config{})
	c := newTestClient(t, srv.URL, Config{})
	intended := time.Now()
	out := Outcome{Intended: intended, ITL: make([]time.Duration, 5, 64), Class: ClassStall, TokenEvents: 99}
	c.Do(t.Context(), workload.Request{Prompt: "x", OutputTokens: 4}, &out)
	if !out.OK() || out.TokenEvents != 4 || len(out.ITL) != 3 || cap(out.ITL) != 64 || !out.Intended.Equal(intended) {
		t.Fatalf("reused outcome: class %q events %d itl %d/%d intended kept %v", out.Class, out.TokenEvents, len(out.ITL), cap(out.ITL), out.Intended.Equal(intended))
	}
}

func TestClientModelsAndBaseURL(t *testing.T) {
	// vLLM lists the served name, not the model's path.
	srv := simServer(t, vllmsim.Config{Model: "org/a-model", ServedModelName: "b-model"})
	for _, base := range []string{srv.URL, srv.URL + "/", srv.URL + "/v1", srv.URL + "/v1/"} {
		c := newTestClient(t, base, Config{})
		if c.BaseURL() != srv.URL {
			t.Errorf("BaseURL(%q) = %q, want %q", base, c.BaseURL(), srv.URL)
		}
		ids, err := c.Models(t.Context())
		if err != nil || !slices.Equal(ids, []string{"b-model"}) {
			t.Errorf("Models = %v, %v", ids, err)
		}
	}
	for _, bad := range []string{"", "localhost:8000", "ftp://x", "http://", "http://user:pw@host"} {
		if _, err := New(Config{BaseURL: bad}); err == nil {
			t.Errorf("New(%q) accepted a bad base URL", bad)
		}
	}
	if _, err := New(Config{BaseURL: srv.URL, API: "embeddings"}); err == nil {
		t.Error("NewClient accepted an unknown API")
	}
}

func TestClientConfigHidesKey(t *testing.T) {
	cfg := Config{BaseURL: "http://h", APIKey: "sk-very-secret"}
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg)} {
		if strings.Contains(s, "sk-very-secret") {
			t.Fatalf("key printed: %s", s)
		}
	}
}

func ExampleClient() {
	// A simulated vLLM server: 3 tokens, one every millisecond.
	srv := vllmsim.NewServer(vllmsim.Config{Model: "my-model", ProfileName: "instant", Faults: vllmsim.Faults{PacedITL: time.Millisecond}})
	defer srv.Close()

	c, err := New(Config{BaseURL: srv.URL, Model: "my-model"})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	var out Outcome
	c.Do(context.Background(), workload.Request{PromptIDs: []int{1, 2, 3, 4}, OutputTokens: 3}, &out)
	fmt.Println(out.OK(), out.PromptTokens, out.CompletionTokens, len(out.ITL))
	// Output: true 4 3 2
}

// TestClientConcurrentStreams: many streams at once share one client, and
// each is measured on its own.
func TestClientConcurrentStreams(t *testing.T) {
	srv := simServer(t, vllmsim.Config{Faults: vllmsim.Faults{PacedTTFT: 20 * time.Millisecond, PacedITL: 2 * time.Millisecond}})
	c := newTestClient(t, srv.URL, Config{MaxConns: 16})
	outs := make([]Outcome, 200)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() {
			c.Do(t.Context(), workload.Request{Index: i, PromptIDs: tokenIDs(i + 1), OutputTokens: 10}, &outs[i])
		})
	}
	wg.Wait()
	for i, out := range outs {
		if !out.OK() || out.Request.Index != i || out.TokenEvents != 10 || out.PromptTokens != i+1 || len(out.ITL) != 9 {
			t.Fatalf("request %d: class %q (%v), index %d, events %d, prompt %d, itl %d",
				i, out.Class, out.Err, out.Request.Index, out.TokenEvents, out.PromptTokens, len(out.ITL))
		}
		if ttft := out.First.Sub(out.Sent); ttft < 20*time.Millisecond {
			t.Fatalf("request %d: TTFT %v is shorter than the server's 20ms", i, ttft)
		}
	}
	if srv.MaxInFlight() < 2 {
		t.Errorf("the server never saw two streams at once")
	}
}

// sentBody is what the client's request bodies may hold.
type sentBody struct {
	Model    string          `json:"model"`
	Prompt   json.RawMessage `json:"prompt"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	MaxTokens           *int     `json:"max_tokens"`
	MaxCompletionTokens *int     `json:"max_completion_tokens"`
	MinTokens           *int     `json:"min_tokens"`
	IgnoreEOS           *bool    `json:"ignore_eos"`
	Stream              bool     `json:"stream"`
	Temperature         *float64 `json:"temperature"`
	StreamOptions       *struct {
		IncludeUsage         bool `json:"include_usage"`
		ContinuousUsageStats bool `json:"continuous_usage_stats"`
	} `json:"stream_options"`
}

package vllmsim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
	"github.com/llmslo/llmslo/vllmsim/tokenizer"
	"github.com/llmslo/llmslo/vllmsim/wire"
)

// rawPost posts body as JSON and returns the status and the body as it came,
// with the error that ended reading it (nil at a clean end).
func rawPost(t testing.TB, url string, body any) (int, string, error) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw), err
}

// events splits an SSE body written with "\n" line endings into the data of
// its events.
func events(raw string) []string {
	var out []string
	for _, ev := range strings.Split(raw, "\n\n") {
		if d, ok := strings.CutPrefix(ev, "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

// streamReq is a streamed completion of n tokens with usage.
func streamReq(prompt string, n int) map[string]any {
	return map[string]any{"prompt": prompt, "max_tokens": n, "ignore_eos": true, "stream": true,
		"stream_options": map[string]any{"include_usage": true}}
}

// chunkHead is the constant head of the chunks of request id (as in
// "cmpl-0"), read from the first event's created time.
func chunkHead(t *testing.T, first, id, object string) string {
	t.Helper()
	var c struct {
		Created int64 `json:"created"`
	}
	if err := json.Unmarshal([]byte(first), &c); err != nil {
		t.Fatalf("first event %q: %v", first, err)
	}
	b, _ := json.Marshal(map[string]any{"created": c.Created})
	return `{"id":"` + id + `","object":"` + object + `",` + string(b[1:len(b)-1]) + `,"model":"` + DefaultModel + `","choices":[`
}

func tokenEvent(head, text, reason string) string {
	r := "null"
	if reason != "" {
		r = `"` + reason + `"`
	}
	ev := head + `{"index":0,"text":"` + text + `","logprobs":null,"finish_reason":` + r +
		`,"stop_reason":null,"prompt_token_ids":null,"token_ids":null}],"usage":null`
	if reason != "" {
		ev += `,"system_fingerprint":"` + defaultFingerprint() + `"`
	}
	return ev + "}"
}

// defaultFingerprint is the system_fingerprint of a server with the
// default configuration under the instant profile.
func defaultFingerprint() string {
	c, err := Config{ProfileName: "instant"}.withDefaults()
	if err != nil {
		panic(err)
	}
	return c.fingerprint()
}

func words(h uint64, from, n int) string {
	var b strings.Builder
	for k := from; k < from+n; k++ {
		b.WriteString(tokenizer.OutputText(h, k))
	}
	return b.String()
}

func usageEvent(head string, prompt, completion int) string {
	return head + `],"usage":{"prompt_tokens":` + itoa(prompt) + `,"total_tokens":` + itoa(prompt+completion) +
		`,"completion_tokens":` + itoa(completion) + `}}`
}

func itoa(n int) string { return strconv.Itoa(n) }

// Each stream fault, on the wire, event by event.
func TestStreamFaultsOnTheWire(t *testing.T) {
	const prompt = "a b c"
	h := engine.TokenHash(Tokenize(prompt))
	tests := []struct {
		name   string
		faults Faults
		n      int
		want   func(head string) []string
	}{
		{"none", Faults{}, 3, func(hd string) []string {
			return []string{tokenEvent(hd, words(h, 0, 1), ""), tokenEvent(hd, words(h, 1, 1), ""),
				tokenEvent(hd, words(h, 2, 1), "length"), usageEvent(hd, 3, 3), "[DONE]"}
		}},
		{"malformed event after 2 tokens, then the rest", Faults{MalformedRate: 1, MalformedAfter: 2}, 3, func(hd string) []string {
			return []string{tokenEvent(hd, words(h, 0, 1), ""), tokenEvent(hd, words(h, 1, 1), ""), hd + `{"index":0,`,
				tokenEvent(hd, words(h, 2, 1), "length"), usageEvent(hd, 3, 3), "[DONE]"}
		}},
		{"error event after 1 token", Faults{ErrorEventRate: 1, ErrorEventAfter: 1}, 3, func(hd string) []string {
			return []string{tokenEvent(hd, words(h, 0, 1), ""), streamErrorJSON, "[DONE]"}
		}},
		{"error event after the last token", Faults{ErrorEventRate: 1, ErrorEventAfter: 99}, 2, func(hd string) []string {
			return []string{tokenEvent(hd, words(h, 0, 1), ""), tokenEvent(hd, words(h, 1, 1), "length"), streamErrorJSON, "[DONE]"}
		}},
		{"no [DONE]", Faults{NoDoneRate: 1}, 2, func(hd string) []string {
			return []string{tokenEvent(hd, words(h, 0, 1), ""), tokenEvent(hd, words(h, 1, 1), "length"), usageEvent(hd, 3, 2)}
		}},
		{"no usage", Faults{NoUsageRate: 1}, 2, func(hd string) []string {
			return []string{tokenEvent(hd, words(h, 0, 1), ""), tokenEvent(hd, words(h, 1, 1), "length"), "[DONE]"}
		}},
		{"no usage, no [DONE]", Faults{NoUsageRate: 1, NoDoneRate: 1}, 2, func(hd string) []string {
			return []string{tokenEvent(hd, words(h, 0, 1), ""), tokenEvent(hd, words(h, 1, 1), "length")}
		}},
		{"three tokens per event", Faults{MultiTokenRate: 1, MultiTokenSize: 3}, 7, func(hd string) []string {
			return []string{tokenEvent(hd, words(h, 0, 3), ""), tokenEvent(hd, words(h, 3, 3), ""),
				tokenEvent(hd, words(h, 6, 1), "length"), usageEvent(hd, 3, 7), "[DONE]"}
		}},
		{"truncated to half", Faults{TruncateRate: 1}, 5, func(hd string) []string {
			// The stop is an end of sequence: the last token has no text,
			// and the usage counts it.
			return []string{tokenEvent(hd, words(h, 0, 1), ""), tokenEvent(hd, "", "stop"), usageEvent(hd, 3, 2), "[DONE]"}
		}},
		{"early empty chunk", Faults{EarlyRoleRate: 1}, 1, func(hd string) []string {
			return []string{hd + `{"index":0,"text":"","logprobs":null,"finish_reason":null,"stop_reason":null,"prompt_token_ids":null,"token_ids":null}],"usage":null}`,
				tokenEvent(hd, words(h, 0, 1), "length"), usageEvent(hd, 3, 1), "[DONE]"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, Config{ProfileName: "instant", Faults: tt.faults})
			status, raw, err := rawPost(t, s.URL+"/v1/completions", streamReq(prompt, tt.n))
			if status != 200 || err != nil {
				t.Fatalf("status %d, read error %v", status, err)
			}
			got := events(raw)
			want := tt.want(chunkHead(t, got[0], "cmpl-0", "text_completion"))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if !strings.HasSuffix(raw, "\n\n") || strings.Count(raw, "data: ") != len(want) {
				t.Fatalf("body %q is not %d whole events", raw, len(want))
			}
		})
	}
}

// A failed generation counts as finished with reason "error", and frees its
// slot.
func TestErrorEventIsCounted(t *testing.T) {
	s := start(t, Config{Profile: fastProfile, Faults: Faults{ErrorEventRate: 1, ErrorEventAfter: 2}})
	_, raw, _ := rawPost(t, s.URL+"/v1/completions", streamReq("x", 1000))
	if !strings.Contains(raw, "data: "+streamErrorJSON+"\n\ndata: [DONE]\n\n") {
		t.Fatalf("body %q", raw)
	}
	waitFor(t, func() bool {
		f := scrape(t, s.URL)
		return metricValue(f, "vllm:num_requests_running") == 0 && hasSeries(f, "vllm:request_success_total", "finished_reason", "error", 1) &&
			hasSeries(f, "vllm:request_success_total", "finished_reason", "abort", 0)
	})
}

// On the chat API the early chunk is the role alone, sent before the first
// token is computed; no second role chunk follows.
func TestEarlyRoleChunk(t *testing.T) {
	s := start(t, Config{ProfileName: "instant", Faults: Faults{EarlyRoleRate: 1, PacedTTFT: 300 * time.Millisecond}})
	b, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "user", "content": "hi"}}, "max_tokens": 2, "stream": true})
	sent := time.Now()
	resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var got []string
	var firstAt time.Duration
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			if got = append(got, d); len(got) == 1 {
				firstAt = time.Since(sent)
			}
		}
	}
	if len(got) != 4 {
		t.Fatalf("events %q", got)
	}
	hd := chunkHead(t, got[0], "chatcmpl-0", "chat.completion.chunk")
	if want := hd + `{"index":0,"delta":{"role":"assistant"},"logprobs":null,"finish_reason":null,"stop_reason":null,"token_ids":null}]}`; got[0] != want {
		t.Fatalf("first event %s, want %s", got[0], want)
	}
	if firstAt > 200*time.Millisecond {
		t.Fatalf("the role chunk came after %v, not at once", firstAt)
	}
	for _, ev := range got[1:3] {
		if !strings.Contains(ev, `"delta":{"content":" `) || strings.Contains(ev, "role") {
			t.Fatalf("token event %s", ev)
		}
	}
}

// streamErrorJSON is the in-stream error event's data in today's format.
const streamErrorJSON = `{"error":{"message":"Internal server error","type":"InternalServerError","param":null,"code":500}}`

// Injected statuses carry the configured message in vLLM's error shape,
// today's envelope or the legacy flat object; echoing headers shows the
// request's Authorization, as a leaky proxy would.
func TestInjectedStatuses(t *testing.T) {
	for _, status := range []int{429, 500, 401} {
		for format, want := range map[string]string{
			"":                `{"error":{"message":"slow down","type":"` + wire.ErrorType(status) + `","param":null,"code":` + itoa(status) + `}}`,
			ErrorFormatLegacy: `{"object":"error","message":"slow down","type":"` + wire.ErrorType(status) + `","param":null,"code":` + itoa(status) + `}`,
		} {
			s := start(t, Config{ProfileName: "instant", ErrorFormat: format, Faults: Faults{ErrorRate: 1, ErrorStatus: status, ErrorMessage: "slow down"}})
			code, raw, _ := rawPost(t, s.URL+"/v1/completions", streamReq("x", 1))
			if code != status || raw != want {
				t.Fatalf("format %q: got %d %s, want %d %s", format, code, raw, status, want)
			}
		}
	}
	s := start(t, Config{ProfileName: "instant", Faults: Faults{ErrorRate: 1, ErrorStatus: 401, ErrorMessage: "bad key", ErrorEchoHeaders: true}})
	req, _ := http.NewRequest("POST", s.URL+"/v1/completions", strings.NewReader(`{"prompt":"x"}`))
	req.Header.Set("Authorization", "Bearer sk-secret-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e wire.APIError
	_ = json.NewDecoder(resp.Body).Decode(&e)
	if e.Error == nil {
		t.Fatalf("%d: no error envelope", resp.StatusCode)
	}
	if resp.StatusCode != 401 || !strings.HasPrefix(e.Error.Message, "bad key\n") || !strings.Contains(e.Error.Message, "\nAuthorization: Bearer sk-secret-1") {
		t.Fatalf("%d %q", resp.StatusCode, e.Error.Message)
	}
}

// A reset before any token: headers, then the connection drops mid-body.
func TestResetBeforeFirstToken(t *testing.T) {
	s := start(t, Config{ProfileName: "instant", Faults: Faults{DisconnectRate: 1}})
	status, raw, err := rawPost(t, s.URL+"/v1/completions", streamReq("x", 5))
	if status != 200 || err == nil || raw != "" {
		t.Fatalf("status %d, body %q, error %v; want 200, nothing, a read error", status, raw, err)
	}
}

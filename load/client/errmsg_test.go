package client

import (
	"strings"
	"testing"

	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
)

// The server's message is read from every shape an error body comes in.
func TestServerMessage(t *testing.T) {
	long := strings.Repeat("é", 400) // 800 bytes
	for _, c := range []struct {
		name, body, want string
	}{
		{"vLLM ≥ 0.10.1 envelope", `{"error":{"message":"The model ` + "`x`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}}`, "The model `x` does not exist."},
		{"OpenAI envelope, string code", `{"error":{"message":"too long","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, "too long"},
		{"vLLM ≤ 0.10.0 flat object", `{"object":"error","message":"This model's maximum context length is 100 tokens.","type":"BadRequestError","param":null,"code":400}`, "This model's maximum context length is 100 tokens."},
		{"error as a string", `{"error":"Unauthorized"}`, "Unauthorized"},
		{"FastAPI detail", `{"detail":"Not Found"}`, "Not Found"},
		{"plain text", "upstream connect error or disconnect/reset before headers\n", "upstream connect error or disconnect/reset before headers"},
		{"HTML", "<html><body>502 Bad Gateway</body></html>", "<html><body>502 Bad Gateway</body></html>"},
		{"JSON without a message", `{"code":503}`, `{"code":503}`},
		{"empty", "  \n", ""},
		{"escapes decoded", `{"error":{"message":"a \"quoted\"\nline"}}`, "a \"quoted\"\nline"},
		{"bounded on a rune boundary", `{"error":{"message":"` + long + `"}}`, strings.Repeat("é", 256) + "…"},
	} {
		if got := serverMessage([]byte(c.body)); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// Through the client, against the simulator in both of vLLM's error
// formats: the status's message and an in-stream error's reach
// Outcome.Message, with the API key redacted when a proxy echoes it.
func TestOutcomeMessage(t *testing.T) {
	for _, format := range []string{vllmsim.ErrorFormatOpenAI, vllmsim.ErrorFormatLegacy} {
		for _, c := range []struct {
			name   string
			faults vllmsim.Faults
			want   string
		}{
			{"status", vllmsim.Faults{ErrorRate: 1, ErrorStatus: 400, ErrorMessage: "prompt too long"}, "prompt too long"},
			{"echoed key", vllmsim.Faults{ErrorRate: 1, ErrorStatus: 401, ErrorMessage: "bad key", ErrorEchoHeaders: true}, "Authorization: Bearer [redacted]"},
			{"in the stream", vllmsim.Faults{ErrorEventRate: 1, ErrorEventAfter: 2}, "Internal server error"},
		} {
			srv := simServer(t, vllmsim.Config{ErrorFormat: format, Faults: c.faults})
			cl := newTestClient(t, srv.URL, Config{APIKey: testKey})
			out, _ := doBounded(t, t.Context(), cl, workload.Request{Prompt: "two words", OutputTokens: 8})
			if out.OK() || !strings.Contains(out.Message, c.want) || strings.Contains(out.Message, testKey) {
				t.Errorf("%s, %s: class %q message %q; want it to contain %q and not the key", format, c.name, out.Class, out.Message, c.want)
			}
		}
	}
	srv := simServer(t, vllmsim.Config{})
	cl := newTestClient(t, srv.URL, Config{})
	if out, _ := doBounded(t, t.Context(), cl, workload.Request{Prompt: "two words", OutputTokens: 2}); !out.OK() || out.Message != "" {
		t.Fatalf("a success: class %q message %q", out.Class, out.Message)
	}
}

// A 503 in the words of vLLM's admission control is shed; any other 503
// (a proxy with no upstream, a server shutting down) stays a server error.
func TestShedIsAdmissionsRefusalOnly(t *testing.T) {
	for _, c := range []struct {
		status int
		msg    string
		shed   bool
	}{
		{503, vllmsim.MsgQueueOverflow, true},
		{503, vllmsim.MsgQueuedTokens, true},
		{503, "server is shutting down", false},
		{503, "no healthy upstream", false},
		{429, vllmsim.MsgQueueOverflow, false},
	} {
		if got := isShed(c.status, c.msg); got != c.shed {
			t.Errorf("%d %q: shed %v, want %v", c.status, c.msg, got, c.shed)
		}
	}
}

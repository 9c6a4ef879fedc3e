package vllmsim

import (
	"encoding/json"
	"fmt"
	"github.com/llmslo/llmslo/internal/testkit"
	"github.com/llmslo/llmslo/vllmsim/wire"
	"io"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Paced streams on the instant profile have the exact TTFT and ITL asked
// for, from the server's side of the wire.
func TestPacedTiming(t *testing.T) {
	const ttft, itl = 50 * time.Millisecond, 5 * time.Millisecond
	s := start(t, Config{ProfileName: "instant", Faults: Faults{PacedTTFT: ttft, PacedITL: itl}})
	for attempt := 1; ; attempt++ {
		var firsts, gaps []time.Duration
		for range 5 {
			r := streamCompletion(t, s.URL, map[string]any{"prompt": "a b", "max_tokens": 20, "ignore_eos": true})
			if r.err != nil || r.tokens != 20 || !r.done {
				t.Fatalf("stream %+v", r)
			}
			if r.ttft() < ttft {
				t.Fatalf("first token after %v, before its paced %v", r.ttft(), ttft)
			}
			if end := r.tokenTimes[19].Sub(r.sent); end < ttft+19*itl {
				t.Fatalf("last token after %v, before its paced %v", end, ttft+19*itl)
			}
			firsts = append(firsts, r.ttft())
			for k := 1; k < 20; k++ {
				gaps = append(gaps, r.tokenTimes[k].Sub(r.tokenTimes[k-1]))
			}
		}
		mt, mi := testkit.Median(firsts), testkit.Median(gaps)
		// The lower bounds above are hard; the medians allow for a busy host,
		// measured again when it was too busy.
		if mt > ttft+5*time.Millisecond || mi < itl-time.Millisecond || mi > itl+time.Millisecond {
			if attempt < 3 {
				t.Logf("attempt %d: TTFT p50 %v, ITL p50 %v; measuring again", attempt, mt, mi)
				continue
			}
			t.Fatalf("TTFT p50 %v, ITL p50 %v; want %v and %v", mt, mi, ttft, itl)
		}
		return
	}
}

// A paced stream writes every token event on its own, also when every
// deadline has already passed (a nanosecond's pacing): on the wire each HTTP
// chunk, which is one flush, carries one token event; the last one also
// carries the usage and [DONE].
func TestPacedEventsAreWrittenOneAtATime(t *testing.T) {
	const n = 40
	s := start(t, Config{ProfileName: "instant", Faults: Faults{PacedITL: time.Nanosecond}})
	conn, err := net.Dial("tcp", s.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body, _ := json.Marshal(streamReq("a b", n))
	fmt.Fprintf(conn, "POST /v1/completions HTTP/1.1\r\nHost: sim\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	raw, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(string(raw), "\r\n\r\n")
	if !strings.Contains(head, "Transfer-Encoding: chunked") {
		t.Fatalf("response head %q", head)
	}
	var perChunk []int
	for {
		sizeHex, after, ok := strings.Cut(rest, "\r\n")
		size, err := strconv.ParseInt(sizeHex, 16, 64)
		if !ok || err != nil || int(size)+2 > len(after) {
			t.Fatalf("bad chunked body at %q", rest)
		}
		if size == 0 {
			break
		}
		perChunk = append(perChunk, strings.Count(after[:size], `"text":" `))
		rest = after[size+2:]
	}
	if len(perChunk) != n || slices.ContainsFunc(perChunk, func(c int) bool { return c != 1 }) {
		t.Fatalf("token events per write %v, want %d writes of one", perChunk, n)
	}
}

// Line endings and comments are legal SSE variations: the same events, in
// another spelling.
func TestSSEVariations(t *testing.T) {
	plain := start(t, Config{ProfileName: "instant"})
	_, base, _ := rawPost(t, plain.URL+"/v1/completions", streamReq("a b", 3))
	for _, tc := range []struct {
		eol      string
		comments bool
	}{{"\r\n", true}, {"\r", false}, {"\n", true}} {
		s := start(t, Config{ProfileName: "instant", Faults: Faults{LineEnding: tc.eol, Comments: tc.comments}})
		_, raw, err := rawPost(t, s.URL+"/v1/completions", streamReq("a b", 3))
		if err != nil {
			t.Fatal(err)
		}
		want := base
		if tc.comments {
			want = strings.ReplaceAll(want, "data: ", ": ping\ndata: ")
		}
		want = strings.ReplaceAll(want, "\n", tc.eol)
		// The streams may be a second apart, and "created" with them.
		raw, want = createdAt.ReplaceAllString(raw, `"created":0`), createdAt.ReplaceAllString(want, `"created":0`)
		if raw != want {
			t.Fatalf("eol %q comments %v:\n%q\nwant\n%q", tc.eol, tc.comments, raw, want)
		}
	}
}

var createdAt = regexp.MustCompile(`"created":\d+`)

// continuous_usage_stats puts the usage so far on every token chunk, also
// when an event holds several tokens.
func TestContinuousUsage(t *testing.T) {
	s := start(t, Config{ProfileName: "instant", Faults: Faults{MultiTokenRate: 1, MultiTokenSize: 3}})
	req := streamReq("a b", 7)
	req["stream_options"] = map[string]any{"include_usage": true, "continuous_usage_stats": true}
	_, raw, _ := rawPost(t, s.URL+"/v1/completions", req)
	var completions []int
	for _, ev := range events(raw) {
		var c struct {
			Choices []json.RawMessage `json:"choices"`
			Usage   *wire.Usage       `json:"usage"`
		}
		if ev == "[DONE]" {
			continue
		}
		if err := json.Unmarshal([]byte(ev), &c); err != nil || c.Usage == nil || c.Usage.PromptTokens != 2 {
			t.Fatalf("event %s: %v", ev, err)
		}
		completions = append(completions, c.Usage.CompletionTokens)
	}
	if want := []int{3, 6, 7, 7}; !slices.Equal(completions, want) {
		t.Fatalf("completion tokens per event %v, want %v (the last is the final usage chunk)", completions, want)
	}
	// Without include_usage there is no usage at all, as in vLLM (whose
	// completion chunks say "usage":null).
	req["stream_options"] = map[string]any{"continuous_usage_stats": true}
	if _, raw, _ = rawPost(t, s.URL+"/v1/completions", req); strings.Contains(raw, `"usage":{`) {
		t.Fatalf("usage without include_usage: %s", raw)
	}
}

// Each fault has its own draw: a rate of one half hits about half the
// requests, the same ones for the same seed, and other faults' requests are
// not the same ones.
func TestFaultDrawsAreIndependentAndReproducible(t *testing.T) {
	f := Faults{NoDoneRate: 0.5, NoUsageRate: 0.5, ErrorEventRate: 0.5}
	pattern := func(seed int64, pick func(faultDraw) bool) string {
		var b strings.Builder
		for n := range uint64(200) {
			if pick(drawFaults(f, seed, n)) {
				b.WriteByte('1')
			} else {
				b.WriteByte('0')
			}
		}
		return b.String()
	}
	noDone := func(d faultDraw) bool { return d.noDone }
	noUsage := func(d faultDraw) bool { return d.noUsage }
	errEv := func(d faultDraw) bool { return d.errorEvent != never }
	a := pattern(3, noDone)
	if n := strings.Count(a, "1"); n < 70 || n > 130 {
		t.Fatalf("%d of 200 drawn at a rate of 0.5", n)
	}
	if a != pattern(3, noDone) || a == pattern(4, noDone) {
		t.Fatal("draws must repeat for a seed and differ between seeds")
	}
	if a == pattern(3, noUsage) || a == pattern(3, errEv) {
		t.Fatal("two faults drew the same requests")
	}
}

func TestFaultFlagsAndValidation(t *testing.T) {
	cfg, err := ParseServeArgs([]string{"--fault-malformed-rate", "0.1", "--fault-malformed-after", "0",
		"--fault-error-event-rate=0.2", "--fault-error-event-after", "4", "--fault-no-done-rate", "0.3",
		"--fault-no-usage-rate", "0.4", "--fault-early-role-rate", "0.5", "--fault-multi-token-rate", "0.6",
		"--fault-multi-token-size", "4", "--fault-truncate-rate", "0.7", "--fault-truncate-fraction", "0.25",
		"--fault-paced-ttft", "50ms", "--fault-paced-itl", "5ms", "--fault-sse-line-ending", "crlf",
		"--fault-sse-comments", "--fault-error-message", "boom", "--fault-error-echo-headers",
		"--enable-prompt-tokens-details"})
	if err != nil {
		t.Fatal(err)
	}
	want := Faults{MalformedRate: 0.1, ErrorEventRate: 0.2, ErrorEventAfter: 4, NoDoneRate: 0.3, NoUsageRate: 0.4,
		EarlyRoleRate: 0.5, MultiTokenRate: 0.6, MultiTokenSize: 4, TruncateRate: 0.7, TruncateFraction: 0.25,
		PacedTTFT: 50 * time.Millisecond, PacedITL: 5 * time.Millisecond, LineEnding: "\r\n", Comments: true,
		ErrorMessage: "boom", ErrorEchoHeaders: true}
	if cfg.Faults != want || !cfg.EnablePromptTokensDetails {
		t.Fatalf("parsed %+v, prompt details %v\nwant %+v", cfg.Faults, cfg.EnablePromptTokensDetails, want)
	}
	for _, bad := range [][]string{{"--fault-no-done-rate", "1.5"}, {"--fault-sse-line-ending", "\\n"},
		{"--fault-multi-token-size", "0"}, {"--fault-truncate-fraction", "1"}} {
		if _, err := ParseServeArgs(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	for _, f := range []Faults{{NoUsageRate: -0.1}, {LineEnding: "\n\n"}, {TruncateFraction: 1}, {StallAfter: -1}, {PacedITL: -time.Second}} {
		if _, err := New(Config{Faults: f}); err == nil {
			t.Errorf("New accepted %+v", f)
		}
	}
}

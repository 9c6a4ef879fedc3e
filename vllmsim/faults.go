package vllmsim

import (
	"fmt"
	"time"
)

// Faults injects failures for reliability tests. Each fault has a rate, the
// fraction of requests it hits, and its parameter. Each draw comes from a
// generator seeded with Config.Seed and the request's arrival number, so a
// given sequence of requests sees the same faults on every run.
//
// An After parameter counts the tokens sent before the fault: 0 strikes
// right after the response headers, before the first token; a value at or
// beyond the request's length strikes after the last token, before the
// usage chunk. Faults other than ErrorRate, DisconnectRate, StallRate,
// TruncateRate and the pacing act on streams only.
type Faults struct {
	ErrorRate   float64 // fraction of requests answered ErrorStatus before any token
	ErrorStatus int     // default 500
	// ErrorMessage is the injected error's message (default "injected
	// fault: the server failed this request"); ErrorEchoHeaders appends the
	// request's headers to it, as some proxies do, so that a test can check
	// a client never shows its own API key.
	ErrorMessage     string
	ErrorEchoHeaders bool

	DisconnectRate  float64 // fraction of requests whose connection is cut (a reset)
	DisconnectAfter int     // … after this many tokens

	StallRate  float64       // fraction of requests that stop sending for a while
	StallAfter int           // … after this many tokens
	StallFor   time.Duration // … for this long (time.Hour: until the client leaves)

	MalformedRate  float64 // fraction of streams that carry one extra event whose data is not JSON
	MalformedAfter int     // … after this many tokens; the stream then goes on

	// ErrorEventRate is the fraction of streams that fail mid-generation
	// as vLLM reports it: data: {"error": {...}} then data: [DONE], with no
	// more tokens and no usage.
	ErrorEventRate  float64
	ErrorEventAfter int

	NoDoneRate  float64 // fraction of streams that end without data: [DONE]
	NoUsageRate float64 // fraction of streams without the usage chunk include_usage asked for

	// EarlyRoleRate is the fraction of streams that open, before the first
	// token is computed, with a chunk that carries no token: role only on
	// the chat API, empty text on completions. It is not a first token.
	EarlyRoleRate float64

	MultiTokenRate float64 // fraction of streams that send several tokens per event
	MultiTokenSize int     // … this many (default 2); the last event may hold fewer

	// TruncateRate is the fraction of requests that generate fewer tokens
	// than max_tokens, ignore_eos and min_tokens notwithstanding:
	// ⌊TruncateFraction × max_tokens⌋ (at least 1; default fraction 0.5),
	// finishing with "stop" and reporting the truncated usage.
	TruncateRate     float64
	TruncateFraction float64

	// PacedTTFT and PacedITL, when either is set, hold every stream's
	// token event k until arrival + PacedTTFT + k × PacedITL (absolute
	// deadlines, so timer jitter does not accumulate). With the "instant"
	// profile the engine is never the later one, so these are the exact
	// TTFT and ITL that a client must measure; /metrics still reports the
	// engine's own times. Each paced event is written and flushed on its
	// own, even when it is late.
	PacedTTFT time.Duration
	PacedITL  time.Duration

	// LineEnding ("\n" by default, "\r\n" or "\r") ends every SSE line,
	// and Comments puts a ": ping" comment line before every event: both
	// legal SSE that a client must accept.
	LineEnding string
	Comments   bool

	// StartupDelay keeps the server unready (503 on /health and on the
	// API) for this long after Start.
	StartupDelay time.Duration
}

const defaultErrorMessage = "injected fault: the server failed this request"

// withDefaults fills unset parameters and checks the rest.
func (f Faults) withDefaults() (Faults, error) {
	if f.ErrorStatus == 0 {
		f.ErrorStatus = 500
	}
	if f.ErrorMessage == "" {
		f.ErrorMessage = defaultErrorMessage
	}
	if f.MultiTokenSize == 0 {
		f.MultiTokenSize = 2
	}
	if f.TruncateFraction == 0 {
		f.TruncateFraction = 0.5
	}
	if f.LineEnding == "" {
		f.LineEnding = "\n"
	}
	for _, r := range []struct {
		name string
		v    float64
	}{{"error rate", f.ErrorRate}, {"disconnect rate", f.DisconnectRate}, {"stall rate", f.StallRate},
		{"malformed rate", f.MalformedRate}, {"error event rate", f.ErrorEventRate}, {"no-[DONE] rate", f.NoDoneRate},
		{"no-usage rate", f.NoUsageRate}, {"early role rate", f.EarlyRoleRate}, {"multi-token rate", f.MultiTokenRate},
		{"truncate rate", f.TruncateRate}} {
		if r.v < 0 || r.v > 1 {
			return f, fmt.Errorf("vllmsim: fault %s must be within [0, 1], got %g", r.name, r.v)
		}
	}
	for _, a := range []struct {
		name string
		v    int
	}{{"disconnect after", f.DisconnectAfter}, {"stall after", f.StallAfter},
		{"malformed after", f.MalformedAfter}, {"error event after", f.ErrorEventAfter}} {
		if a.v < 0 {
			return f, fmt.Errorf("vllmsim: fault %s must be 0 or more tokens, got %d", a.name, a.v)
		}
	}
	switch {
	case f.ErrorStatus < 400 || f.ErrorStatus > 599:
		return f, fmt.Errorf("vllmsim: fault error status must be 4xx or 5xx, got %d", f.ErrorStatus)
	case f.MultiTokenSize < 1:
		return f, fmt.Errorf("vllmsim: fault multi-token size must be at least 1, got %d", f.MultiTokenSize)
	case f.TruncateFraction <= 0 || f.TruncateFraction >= 1:
		return f, fmt.Errorf("vllmsim: fault truncate fraction must be within (0, 1), got %g", f.TruncateFraction)
	case f.LineEnding != "\n" && f.LineEnding != "\r\n" && f.LineEnding != "\r":
		return f, fmt.Errorf("vllmsim: SSE line ending must be \\n, \\r\\n or \\r, got %q", f.LineEnding)
	case f.StallFor < 0 || f.PacedTTFT < 0 || f.PacedITL < 0 || f.StartupDelay < 0:
		return f, fmt.Errorf("vllmsim: fault durations must not be negative")
	}
	return f, nil
}

// never marks a positional fault that was not drawn.
const never = -1

// faultDraw is what the fault injector decided for one request.
type faultDraw struct {
	errorStatus int // 0: answer normally
	// Tokens sent before each positional fault strikes, or never.
	disconnect, stall, malformed, errorEvent int
	noDone, noUsage, earlyRole, truncate     bool
	perEvent                                 int // tokens per event
}

// drawFaults decides the faults of the n-th request (counting from 0 in
// arrival order) from the seed alone, so runs are reproducible. Each fault
// has its own draw, so changing one rate leaves the others' requests as
// they were.
func drawFaults(f Faults, seed int64, n uint64) faultDraw {
	base := splitmix64(uint64(seed)*0x632be59bd9b4e019 ^ n)
	hit := func(k uint64, rate float64) bool { return rate > 0 && unitFloat(splitmix64(base+k)) < rate }
	d := faultDraw{disconnect: never, stall: never, malformed: never, errorEvent: never, perEvent: 1}
	if hit(1, f.ErrorRate) {
		d.errorStatus = f.ErrorStatus
		return d
	}
	at := func(k uint64, rate float64, after int) int {
		if hit(k, rate) {
			return after
		}
		return never
	}
	d.disconnect = at(2, f.DisconnectRate, f.DisconnectAfter)
	if f.StallFor > 0 {
		d.stall = at(3, f.StallRate, f.StallAfter)
	}
	d.malformed = at(4, f.MalformedRate, f.MalformedAfter)
	d.errorEvent = at(5, f.ErrorEventRate, f.ErrorEventAfter)
	d.noDone = hit(6, f.NoDoneRate)
	d.noUsage = hit(7, f.NoUsageRate)
	d.earlyRole = hit(8, f.EarlyRoleRate)
	if hit(9, f.MultiTokenRate) {
		d.perEvent = max(f.MultiTokenSize, 1)
	}
	d.truncate = hit(10, f.TruncateRate)
	return d
}

// truncated is the output length of a request drawn for truncation.
func (f Faults) truncated(maxTokens int) int {
	return max(1, int(f.TruncateFraction*float64(maxTokens)))
}

// The fault flags added since the first ones (in args.go) are registered
// here, beside the faults they set.
func init() {
	boolFlag := func(set func(*Config)) serveFlag {
		return serveFlag{boolean: true, set: func(c *Config, _ string) error { set(c); return nil }}
	}
	for name, fl := range map[string]serveFlag{
		"fault-error-message":      stringFlag(func(c *Config) *string { return &c.Faults.ErrorMessage }),
		"fault-error-echo-headers": boolFlag(func(c *Config) { c.Faults.ErrorEchoHeaders = true }),
		"fault-malformed-rate":     rateFlag(func(c *Config) *float64 { return &c.Faults.MalformedRate }),
		"fault-malformed-after":    intFlag(func(c *Config) *int { return &c.Faults.MalformedAfter }, 0),
		"fault-error-event-rate":   rateFlag(func(c *Config) *float64 { return &c.Faults.ErrorEventRate }),
		"fault-error-event-after":  intFlag(func(c *Config) *int { return &c.Faults.ErrorEventAfter }, 0),
		"fault-no-done-rate":       rateFlag(func(c *Config) *float64 { return &c.Faults.NoDoneRate }),
		"fault-no-usage-rate":      rateFlag(func(c *Config) *float64 { return &c.Faults.NoUsageRate }),
		"fault-early-role-rate":    rateFlag(func(c *Config) *float64 { return &c.Faults.EarlyRoleRate }),
		"fault-multi-token-rate":   rateFlag(func(c *Config) *float64 { return &c.Faults.MultiTokenRate }),
		"fault-multi-token-size":   intFlag(func(c *Config) *int { return &c.Faults.MultiTokenSize }, 1),
		"fault-truncate-rate":      rateFlag(func(c *Config) *float64 { return &c.Faults.TruncateRate }),
		"fault-truncate-fraction":  rateFlag(func(c *Config) *float64 { return &c.Faults.TruncateFraction }),
		"fault-paced-ttft":         durationFlag(func(c *Config) *time.Duration { return &c.Faults.PacedTTFT }),
		"fault-paced-itl":          durationFlag(func(c *Config) *time.Duration { return &c.Faults.PacedITL }),
		"fault-sse-comments":       boolFlag(func(c *Config) { c.Faults.Comments = true }),
		"fault-sse-line-ending": {set: func(c *Config, v string) error {
			e, ok := map[string]string{"lf": "\n", "crlf": "\r\n", "cr": "\r"}[v]
			if !ok {
				return fmt.Errorf("%q is not one of lf, crlf, cr", v)
			}
			c.Faults.LineEnding = e
			return nil
		}},
		"enable-prompt-tokens-details": boolFlag(func(c *Config) { c.EnablePromptTokensDetails = true }),
	} {
		serveFlags[name] = fl
	}
}

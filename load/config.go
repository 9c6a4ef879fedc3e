package load

import (
	"fmt"
	"time"

	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/workload"
)

// Defaults of a Config.
const (
	DefaultFixture  = "azure-conv-2023"
	DefaultDuration = 60 * time.Second
	DefaultWarmup   = 10 * time.Second
	DefaultSeed     = 1
)

// DefaultRates are the rate steps when none are given: a moderate rate and
// twice it. At the default 60 s each gives the 200 requests a p95 needs.
var DefaultRates = []float64{4, 8}

// DefaultSLOs are the SLOs when none are given.
var DefaultSLOs = []string{"ttft.p95<=500ms", "itl.p99<=50ms", "error_rate<=1%"}

// Config is everything a measurement needs, as both faces (slotest and
// the llmslo command) fill it. DefaultConfig holds the defaults.
type Config struct {
	Target   TargetSpec
	Fixture  string // a fixture name (formats.Names) or a path
	Rates    []float64
	Arrival  string // poisson, constant, gamma:B, trace[:SPEED], ramp:FROM
	Duration time.Duration
	Warmup   time.Duration
	Seed     int64
	API      workload.API
	SLOs     []string
	// Strict passes a latency SLO only when the upper end of its 95%
	// interval is within the limit.
	Strict bool
	// StarvedRetries measures a step again, up to this many times, when
	// its only hazard is client_saturation: a starved client says nothing
	// of the server, and a shared CI machine starves one now and then.
	// Each discarded attempt is listed in the kept step's Retried. Not with
	// a start time (shards): those steps keep a common clock.
	StarvedRetries int
	MaxInFlight    int
	// SimArgs are the vLLM serve flags Target.Sim was parsed from, when it
	// was: a variant sweep adds each variant's flags to them.
	SimArgs []string
	// SweepPrecision stops a sweep's bisection once the knee's bracket is
	// within this fraction of its upper end (0: run every refinement).
	SweepPrecision float64
	// StallTimeout abandons a request when no byte of its response came
	// for this long (client default 60s); RequestTimeout abandons one that
	// took this long in all (client default 10m). An abandoned request
	// counts against the error rate and enters TTFT and E2EL as a lower
	// bound: what the user had waited when the client gave up.
	StallTimeout   time.Duration
	RequestTimeout time.Duration
	// CancelRate abandons that fraction of requests CancelAfter after
	// their intended send time, closing the connection as a user pressing
	// stop does.
	// Which requests is a draw on Seed and the request's index. They are
	// counted as abandoned: not failures, and out of the error rate, of
	// goodput's denominator and of the latency percentiles.
	CancelRate  float64
	CancelAfter time.Duration
	// RequestsOut, when set, receives one JSON line per request
	// (docs/requests.md); with it empty and ReportDir set, they go to
	// requests.jsonl there.
	RequestsOut string
	// DrainTimeout bounds the wait for in-flight requests after a step's
	// last send; zero means the larger of 30s and the step's duration.
	DrainTimeout time.Duration
	// ThinkTimeScale multiplies every think time of a session replay
	// (default 1; it must be positive); MaxThink, when positive, caps a
	// scaled think time. See docs/sessions.md.
	ThinkTimeScale float64
	MaxThink       time.Duration
	// Salt puts a per-run nonce in every prompt so nothing is served from
	// a previous run's cache; ResetPrefixCache resets the server's prefix
	// cache before each step where it allows. Both default to true; with
	// both off, re-runs send identical prompts to a warm cache.
	Salt             bool
	ResetPrefixCache bool
	Thresholds       verdict.Thresholds
	// MaxModelLen clips requests that would not fit (input + output), and
	// the report counts them; zero means the max_model_len the server
	// reports in GET /v1/models, as vLLM does, and no clipping when it
	// reports none.
	MaxModelLen int
	// UpdateBaseline records the run's report at Baseline instead of
	// comparing with it; BaselineHint says how a user asks for that in the
	// face they use, for errors.
	UpdateBaseline bool
	BaselineHint   string
	// ReportDir, when set, receives report.json and report.html.
	ReportDir string
	// Baseline, when set, is a recorded report each step is compared with
	// (see WithBaseline); BaselineTolerance is the slowdown allowed.
	Baseline          string
	BaselineTolerance float64
	// Progress watches each step as it runs (internal/progress draws it
	// for the faces); nil means none.
	Progress Progress
	// Shard makes the process send only its share of each step's schedule
	// (see Shard); StartAt, when set, is the wall-clock instant the first
	// step starts at, shared by all shards, and later steps start at fixed
	// offsets from it (docs/sharding.md).
	Shard   Shard
	StartAt time.Time
}

// DefaultConfig returns a Config holding every default.
func DefaultConfig() Config {
	c := Config{
		Fixture:          DefaultFixture,
		Rates:            append([]float64(nil), DefaultRates...),
		Arrival:          "poisson",
		Duration:         DefaultDuration,
		Warmup:           DefaultWarmup,
		Seed:             DefaultSeed,
		API:              workload.APICompletions,
		SLOs:             append([]string(nil), DefaultSLOs...),
		Salt:             true,
		ResetPrefixCache: true,
		ThinkTimeScale:   1,
	}
	return c
}

func (c *Config) validate() error {
	if c.Duration <= 0 {
		return fmt.Errorf("step duration %v must be positive", c.Duration)
	}
	if c.Warmup < 0 {
		return fmt.Errorf("warm-up %v must not be negative", c.Warmup)
	}
	for _, r := range c.Rates {
		if r <= 0 {
			return fmt.Errorf("rate %g must be positive", r)
		}
	}
	if err := c.Thresholds.Validate(); err != nil {
		return err
	}
	if c.StarvedRetries < 0 {
		return fmt.Errorf("StarvedRetries %d must not be negative", c.StarvedRetries)
	}
	if err := c.validateThink(); err != nil {
		return err
	}
	if err := c.validateCancel(); err != nil {
		return err
	}
	return c.validateShard()
}

// baselineHint says how to record a baseline, for errors.
func (c *Config) baselineHint() string {
	if c.BaselineHint != "" {
		return c.BaselineHint
	}
	return "Config.UpdateBaseline"
}

// DrainBound is how long a step waits for its last requests after its last
// send: DrainTimeout, or the larger of the dispatcher's default and the
// step's duration.
func (c *Config) DrainBound() time.Duration { return drainBound(c.DrainTimeout, c.Duration) }

func drainBound(set, step time.Duration) time.Duration {
	if set > 0 {
		return set
	}
	return max(dispatch.DefaultDrainTimeout, step)
}

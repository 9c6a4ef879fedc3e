package slotest

import (
	"fmt"
	"io"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/vllmsim"
)

// Defaults of a Config, each overridden by an Option.
const (
	DefaultFixture  = "azure-conv-2023"
	DefaultDuration = 60 * time.Second
	DefaultWarmup   = 10 * time.Second
	DefaultSeed     = 1
	// ShortDivisor shortens steps and warm-ups under go test -short.
	ShortDivisor = 4
)

// DefaultRates are the rate steps when none are given: a moderate rate and
// twice it. At the default 60 s each gives the 200 requests a p95 needs.
var DefaultRates = []float64{4, 8}

// DefaultSLOs are the SLOs when none are given.
var DefaultSLOs = []string{"ttft.p95<=500ms", "itl.p99<=50ms", "error_rate<=1%"}

// Config is everything a measurement needs. NewConfig fills the defaults;
// Options change them.
type Config struct {
	Target   TargetSpec
	Fixture  string // a fixture name (fixtures.Names) or a path
	Rates    []float64
	Arrival  string // poisson, constant, gamma:B, trace[:SPEED], ramp:FROM
	Duration time.Duration
	Warmup   time.Duration
	Seed     int64
	API      load.API
	SLOs     []string
	// Strict passes a latency SLO only when the upper end of its 95%
	// interval is within the limit.
	Strict      bool
	MaxInFlight int
	// DrainTimeout bounds the wait for in-flight requests after a step's
	// last send; zero means the larger of 30s and the step's duration.
	DrainTimeout time.Duration
	// Salt puts a per-run nonce in every prompt so nothing is served from
	// a previous run's cache; ResetPrefixCache resets the server's prefix
	// cache before each step where it allows. Both default to true; with
	// both off, re-runs send identical prompts to a warm cache.
	Salt             bool
	ResetPrefixCache bool
	Thresholds       load.Thresholds
	// MaxModelLen clips requests that would not fit (input + output), and
	// the report counts them; zero means the max_model_len the server
	// reports in GET /v1/models, as vLLM does, and no clipping when it
	// reports none.
	MaxModelLen int
	// ReportDir, when set, receives report.json and report.html.
	ReportDir string
	// Baseline, when set, is a recorded report each step is compared with
	// (see WithBaseline); BaselineTolerance is the slowdown allowed.
	Baseline          string
	BaselineTolerance float64
	// Progress gets a line per second during a step; nil means none.
	Progress io.Writer
}

// NewConfig returns the defaults with opts applied in order.
func NewConfig(opts ...Option) Config {
	c := Config{
		Fixture:          DefaultFixture,
		Rates:            append([]float64(nil), DefaultRates...),
		Arrival:          "poisson",
		Duration:         DefaultDuration,
		Warmup:           DefaultWarmup,
		Seed:             DefaultSeed,
		API:              load.APICompletions,
		SLOs:             append([]string(nil), DefaultSLOs...),
		Salt:             true,
		ResetPrefixCache: true,
		Thresholds:       load.DefaultThresholds(),
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Option changes a Config.
type Option func(*Config)

// WithTarget chooses the server: "sim", "vllm" or a URL.
func WithTarget(target string) Option { return func(c *Config) { c.Target.Target = target } }

// WithModel sets the model requests carry (and the vllm target serves).
func WithModel(model string) Option { return func(c *Config) { c.Target.Model = model } }

// WithSim configures the simulator target.
func WithSim(cfg vllmsim.Config) Option { return func(c *Config) { c.Target.Sim = cfg } }

// WithVLLMOptions adds options for the vllm target's container (see
// package containers/vllm), after the defaults.
func WithVLLMOptions(opts ...testcontainers.ContainerCustomizer) Option {
	return func(c *Config) { c.Target.VLLMOptions = append(c.Target.VLLMOptions, opts...) }
}

// WithFixture chooses the workload: a shipped fixture name, fixed:IN:OUT,
// random:IN:OUT[:RANGE], or a path.
func WithFixture(nameOrPath string) Option { return func(c *Config) { c.Fixture = nameOrPath } }

// WithRates sets the rate steps, in requests per second.
func WithRates(rates ...float64) Option {
	return func(c *Config) { c.Rates = append([]float64(nil), rates...) }
}

// WithArrival sets the arrival process (default poisson).
func WithArrival(arrival string) Option { return func(c *Config) { c.Arrival = arrival } }

// WithDuration sets each step's measured duration (default 60s).
func WithDuration(d time.Duration) Option { return func(c *Config) { c.Duration = d } }

// WithWarmup sets each step's unmeasured warm-up (default 10s).
func WithWarmup(d time.Duration) Option { return func(c *Config) { c.Warmup = d } }

// WithSeed seeds sampling and arrivals (default 1).
func WithSeed(seed int64) Option { return func(c *Config) { c.Seed = seed } }

// WithAPI chooses the completions (default) or the chat API.
func WithAPI(api load.API) Option { return func(c *Config) { c.API = api } }

// WithSLO replaces the default SLOs with the given expressions, such as
// "ttft.p95<=500ms" or "error_rate<=1%".
func WithSLO(exprs ...string) Option {
	return func(c *Config) { c.SLOs = append([]string(nil), exprs...) }
}

// WithStrict makes latency SLOs pass only on a conclusive interval.
func WithStrict() Option { return func(c *Config) { c.Strict = true } }

// WithMaxInFlight caps requests in flight; requests over the cap are
// dropped and flagged, never queued.
func WithMaxInFlight(n int) Option { return func(c *Config) { c.MaxInFlight = n } }

// WithSalt turns per-run prompt salting on or off (default on).
func WithSalt(on bool) Option { return func(c *Config) { c.Salt = on } }

// WithResetPrefixCache turns the reset before each step on or off
// (default on).
func WithResetPrefixCache(on bool) Option { return func(c *Config) { c.ResetPrefixCache = on } }

// WithThresholds adjusts the hazard thresholds.
func WithThresholds(f func(*load.Thresholds)) Option { return func(c *Config) { f(&c.Thresholds) } }

// WithReportDir writes report.json (and report.html) into dir.
func WithReportDir(dir string) Option { return func(c *Config) { c.ReportDir = dir } }

// WithProgress writes a progress line per second to w.
func WithProgress(w io.Writer) Option { return func(c *Config) { c.Progress = w } }

// WithMaxModelLen clips requests to n tokens of prompt and output.
func WithMaxModelLen(n int) Option { return func(c *Config) { c.MaxModelLen = n } }

// WithDrainTimeout bounds the wait for in-flight requests after each step.
func WithDrainTimeout(d time.Duration) Option { return func(c *Config) { c.DrainTimeout = d } }

func (c *Config) validate() error {
	if c.Duration <= 0 {
		return fmt.Errorf("slotest: step duration %v must be positive", c.Duration)
	}
	if c.Warmup < 0 {
		return fmt.Errorf("slotest: warm-up %v must not be negative", c.Warmup)
	}
	for _, r := range c.Rates {
		if r <= 0 {
			return fmt.Errorf("slotest: rate %g must be positive", r)
		}
	}
	return nil
}

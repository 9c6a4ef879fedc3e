package slotest

import (
	"io"
	"slices"
	"time"

	"github.com/llmslo/llmslo/internal/progress"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/testcontainers/testcontainers-go"
)

// Config is everything a measurement needs (load.Config). NewConfig fills
// the defaults; Options change them.
type Config = load.Config

// ShortDivisor shortens steps and warm-ups under go test -short.
const ShortDivisor = 4

// NewConfig returns the defaults with opts applied in order.
func NewConfig(opts ...Option) Config {
	c := load.DefaultConfig()
	c.Target.Container = vllmStarter{}
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
// package containers/vllm), after the defaults (the model, dev mode). It
// puts slotest's testcontainers-go starter in place if another was set.
func WithVLLMOptions(opts ...testcontainers.ContainerCustomizer) Option {
	return func(c *Config) {
		s, _ := c.Target.Container.(vllmStarter)
		s.opts = append(slices.Clip(s.opts), opts...)
		c.Target.Container = s
	}
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
func WithAPI(api workload.API) Option { return func(c *Config) { c.API = api } }

// WithSLO replaces the default SLOs with the given expressions, such as
// "ttft.p95<=500ms" or "error_rate<=1%".
func WithSLO(exprs ...string) Option {
	return func(c *Config) { c.SLOs = append([]string(nil), exprs...) }
}

// WithStrict makes latency SLOs pass only on a conclusive interval.
func WithStrict() Option { return func(c *Config) { c.Strict = true } }

// WithStarvedRetries measures a step again, up to n times, when its only
// hazard is client_saturation: a gate on a shared CI machine whose client
// was starved for a moment says nothing of the server. Each discarded
// attempt is logged and listed in the step's report (retried); any other
// hazard or an SLO violation is final at once. A gate run as a shard
// (SLOTEST_START_AT) measures each step once: its steps keep the shared clock.
func WithStarvedRetries(n int) Option { return func(c *Config) { c.StarvedRetries = n } }

// WithMaxInFlight caps requests in flight; requests over the cap are
// dropped and flagged, never queued.
func WithMaxInFlight(n int) Option { return func(c *Config) { c.MaxInFlight = n } }

// WithSalt turns per-run prompt salting on or off (default on).
func WithSalt(on bool) Option { return func(c *Config) { c.Salt = on } }

// WithResetPrefixCache turns the reset before each step on or off
// (default on).
func WithResetPrefixCache(on bool) Option { return func(c *Config) { c.ResetPrefixCache = on } }

// WithThresholds adjusts the hazard thresholds.
func WithThresholds(f func(*verdict.Thresholds)) Option { return func(c *Config) { f(&c.Thresholds) } }

// WithReportDir writes report.json (and report.html) into dir.
func WithReportDir(dir string) Option { return func(c *Config) { c.ReportDir = dir } }

// WithProgress writes progress to w as to a log: a line every 10 s while
// a step runs, and one when it ends.
func WithProgress(w io.Writer) Option { return func(c *Config) { c.Progress = progress.Plain(w) } }

// WithMaxModelLen clips requests to n tokens of prompt and output.
func WithMaxModelLen(n int) Option { return func(c *Config) { c.MaxModelLen = n } }

// WithDrainTimeout bounds the wait for in-flight requests after each step.
func WithDrainTimeout(d time.Duration) Option { return func(c *Config) { c.DrainTimeout = d } }

// WithStallTimeout abandons a request whose response sends nothing for d;
// it then counts as a failure and enters TTFT as a lower bound.
func WithStallTimeout(d time.Duration) Option { return func(c *Config) { c.StallTimeout = d } }

// WithRequestTimeout abandons a request that takes longer than d in all,
// counted as WithStallTimeout's are.
func WithRequestTimeout(d time.Duration) Option { return func(c *Config) { c.RequestTimeout = d } }

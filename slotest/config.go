package slotest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/llmslo/llmslo/fixtures/formats"
	"github.com/llmslo/llmslo/internal/progress"
	"github.com/llmslo/llmslo/internal/targets"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
)

// config is a gate as its options describe it: the load.Plan they set
// directly (durations, rates, thresholds, …) and the inputs that slotest
// resolves when the gate runs: the target's name (SLOTEST_TARGET overrides
// it), the fixture's name or path, the baseline's path and the report
// directory. Options that take text (WithArrival, WithSLO) parse it once,
// when applied. newConfig fills the defaults; Options change them; build
// turns it into the typed plan load.Measure takes.
type config struct {
	load.Plan

	target, model string
	sim           vllmsim.Config
	container     load.ContainerStarter
	fixture       string
	baselinePath  string
	reportDir     string
	versus        string // the base server's name (WithVersus)
	versusSim     vllmsim.Config
	versusArgs    []string // a vllm base's serve flags (WithVersusVLLMArgs)
	// err is the first option whose text did not parse, for Plan.
	err error
}

// ShortDivisor shortens steps and warm-ups under go test -short.
const ShortDivisor = 4

// newConfig returns the defaults with opts applied in order.
func newConfig(opts ...Option) config {
	c := config{Plan: load.DefaultPlan(), fixture: load.DefaultFixture, container: containerStarter()}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// build completes the typed plan with what the options could not parse on
// their own: the target, the fixture (read from its file when it is a
// path) and the baseline. It returns the first option's error, if any.
func (c config) build() (load.Plan, error) {
	p := c.Plan
	if c.err != nil {
		return p, c.err
	}
	var err error
	if p.Target, err = c.targetOf(); err != nil {
		return p, fmt.Errorf("slotest: %w", err)
	}
	if p.Versus, err = c.versusOf(); err != nil {
		return p, fmt.Errorf("slotest: %w", err)
	}
	if p.Fixture, err = formats.Open(c.fixture); err != nil {
		return p, fmt.Errorf("slotest: fixture: %w", err)
	}
	if c.baselinePath != "" && !Updating() {
		if p.Baseline, err = load.ReadBaseline(c.baselinePath); err != nil {
			return p, fmt.Errorf("slotest: %w", withRecordHint(err))
		}
	}
	return p, nil
}

// targetOf is the target the config names, with the environment's model
// and image for the vllm target and the environment's API key.
func (c config) targetOf() (load.Target, error) {
	return c.named(c.target, c.sim, os.Getenv(EnvVLLMImage))
}

// named is the server a name chooses (sim, vllm or a URL), the simulator
// configured by sim, a vllm container from image (else the default).
func (c config) named(name string, sim vllmsim.Config, image string) (load.Target, error) {
	o := targets.Options{Model: c.model, APIKey: targets.APIKeyFromEnv(), Sim: sim, Starter: c.container}
	if strings.TrimSpace(name) == targets.VLLM {
		o.Model = firstNonEmpty(c.model, os.Getenv(EnvModel))
		o.Image = firstNonEmpty(image, defaultImage)
		if o.Model == "" {
			return nil, fmt.Errorf("the vllm target needs a model: set %s or WithModel", EnvModel)
		}
		if o.Starter == nil {
			return nil, errors.New("the vllm target starts a container: import github.com/llmslo/llmslo/slotest/vllmcontainer in this test package (a blank import is enough)")
		}
	}
	return targets.Parse(name, o)
}

// Option changes a config.
type Option func(*config)

// setErr keeps the first option error, named for the test's log.
func (c *config) setErr(err error) {
	if err != nil && c.err == nil {
		c.err = fmt.Errorf("slotest: %w", err)
	}
}

// WithTarget chooses the server: "sim", "vllm" or a URL.
func WithTarget(target string) Option { return func(c *config) { c.target = target } }

// WithModel sets the model requests carry (and the vllm target serves).
func WithModel(model string) Option { return func(c *config) { c.model = model } }

// WithSim configures the simulator target.
func WithSim(cfg vllmsim.Config) Option { return func(c *config) { c.sim = cfg } }

// WithContainerStarter sets what starts the vllm target's container
// (package slotest/vllmcontainer's Options sets its own).
func WithContainerStarter(s load.ContainerStarter) Option {
	return func(c *config) { c.container = s }
}

// WithFixture chooses the workload: a shipped fixture name, fixed:IN:OUT,
// random:IN:OUT[:RANGE], or a path.
func WithFixture(nameOrPath string) Option { return func(c *config) { c.fixture = nameOrPath } }

// WithRates sets the rate steps, in requests per second.
func WithRates(rates ...float64) Option {
	return func(c *config) { c.Rates = append([]float64(nil), rates...) }
}

// WithArrival sets the arrival process (default poisson).
func WithArrival(spec string) Option {
	return func(c *config) {
		a, err := arrival.Parse(spec)
		c.setErr(err)
		c.Arrival = a
	}
}

// WithDuration sets each step's measured duration (default 60s).
func WithDuration(d time.Duration) Option { return func(c *config) { c.Duration = d } }

// WithUntilDecided stops each step once its verdict is decided, on
// intervals valid however often they are checked (load.Plan.UntilDecided):
// WithDuration is then the cap, and a step not decided by it is judged on
// its full window. The step's report says when it stopped and why.
func WithUntilDecided() Option { return func(c *config) { c.UntilDecided = true } }

// WithMinDuration sets the floor of a step run WithUntilDecided: no step
// stops before d is measured (default 10s).
func WithMinDuration(d time.Duration) Option { return func(c *config) { c.MinDuration = d } }

// WithWarmup sets each step's unmeasured warm-up (default 10s).
func WithWarmup(d time.Duration) Option { return func(c *config) { c.Warmup = d } }

// WithSeed seeds sampling and arrivals (default 1).
func WithSeed(seed int64) Option { return func(c *config) { c.Seed = seed } }

// WithAPI chooses the completions (default) or the chat API.
func WithAPI(api workload.API) Option { return func(c *config) { c.API = api } }

// WithSLO replaces the default SLOs with the given expressions, such as
// "ttft.p95<=500ms" or "error_rate<=1%".
func WithSLO(exprs ...string) Option {
	return func(c *config) {
		slos, err := verdict.ParseSLOs(exprs)
		c.setErr(err)
		c.SLOs = slos
	}
}

// WithStrict makes latency SLOs pass only on a conclusive interval.
func WithStrict() Option { return func(c *config) { c.Strict = true } }

// WithStarvedRetries measures a step again, up to n times, when its only
// hazard is client_saturation: a gate on a shared CI machine whose client
// was starved for a moment says nothing of the server. Each discarded
// attempt is logged and listed in the step's report (retried); any other
// hazard or an SLO violation is final at once. A gate run as a shard
// (SLOTEST_START_AT) measures each step once: its steps keep the shared clock.
func WithStarvedRetries(n int) Option { return func(c *config) { c.StarvedRetries = n } }

// WithMaxInFlight caps requests in flight; requests over the cap are
// dropped and flagged, never queued.
func WithMaxInFlight(n int) Option { return func(c *config) { c.MaxInFlight = n } }

// WithSalt turns per-run prompt salting on or off (default on).
func WithSalt(on bool) Option { return func(c *config) { c.Salt = on } }

// WithResetPrefixCache turns the reset before each step on or off
// (default on).
func WithResetPrefixCache(on bool) Option { return func(c *config) { c.ResetPrefixCache = on } }

// WithResetRunningRequests lets that reset preempt the requests a server
// still runs when it does not go idle in time (vLLM's
// reset_running_requests; default off: they are recomputed).
func WithResetRunningRequests(on bool) Option {
	return func(c *config) { c.ResetRunningRequests = on }
}

// WithThresholds adjusts the hazard thresholds.
func WithThresholds(f func(*verdict.Thresholds)) Option { return func(c *config) { f(&c.Thresholds) } }

// WithReportDir writes report.json (and report.html) into dir.
func WithReportDir(dir string) Option { return func(c *config) { c.reportDir = dir } }

// WithProgress writes progress to w as to a log: a line every 10 s while
// a step runs, and one when it ends.
func WithProgress(w io.Writer) Option { return func(c *config) { c.Progress = progress.Plain(w) } }

// WithLengthsAdvisory declares a server that stops at EOS whatever
// ignore_eos says: its outputs are judged as given, and a step whose
// outputs came back short can pass, with a note that the workload was
// lighter than asked (the share short, the mean output given and asked).
// Without it such a step is invalid (length_mismatch), and a URL target
// seen ending early in the probe before the first step fails the test.
func WithLengthsAdvisory() Option { return func(c *config) { c.LengthsAdvisory = true } }

// WithMaxModelLen clips requests to n tokens of prompt and output.
func WithMaxModelLen(n int) Option { return func(c *config) { c.MaxModelLen = n } }

// WithDrainTimeout bounds the wait for in-flight requests after each step.
func WithDrainTimeout(d time.Duration) Option { return func(c *config) { c.DrainTimeout = d } }

// WithStallTimeout abandons a request whose response sends nothing for d;
// it then counts as a failure and enters TTFT as a lower bound.
func WithStallTimeout(d time.Duration) Option { return func(c *config) { c.StallTimeout = d } }

// WithRequestTimeout abandons a request that takes longer than d in all,
// counted as WithStallTimeout's are.
func WithRequestTimeout(d time.Duration) Option { return func(c *config) { c.RequestTimeout = d } }

// optionNames name the option that sets each Plan field, for the messages
// of Plan validation, which checks every setting (load.NameSettings).
var optionNames = map[string]string{
	"Rates": "WithRates", "Fixture": "WithFixture", "Duration": "WithDuration", "Warmup": "WithWarmup", "DrainTimeout": "WithDrainTimeout",
	"CancelRate": "WithCancel's rate", "CancelAfter": "WithCancel's after", "RequestsOut": "the requests file",
	"ThinkTimeScale": "WithThinkTimeScale", "MaxThink": "WithMaxThink", "StarvedRetries": "WithStarvedRetries",
	"BaselineTolerance": "WithBaseline's tolerance", "ResetRunningRequests": "WithResetRunningRequests",
	"ResetPrefixCache": "WithResetPrefixCache(false)", "MinDuration": "WithMinDuration", "UntilDecided": "WithUntilDecided",
	"Versus": "WithVersus", "VersusMode": "WithVersusMode", "VersusTolerance": "WithVersusTolerance", "VersusBlock": "WithVersusBlock", "Baseline": "WithBaseline",
	"Overload": "WithOverload",
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmslo/llmslo/fixtures/formats"
	"github.com/llmslo/llmslo/internal/targets"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/render"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
)

func init() {
	register("run", command{summary: "measure a server at fixed open-loop rates and check SLOs", run: runCmd})
}

// runFlags are the inputs run and sweep share.
type runFlags struct {
	target, fixture, rates, arrival, api, model, report string
	html, baseline                                      string
	baselineTolerance                                   float64
	updateBaseline                                      bool
	simArgs                                             string
	duration, warmup, drain                             time.Duration
	stallTimeout, requestTimeout                        time.Duration
	seed                                                int64
	maxInFlight, maxModelLen                            int
	salt, reset, resetRunning, strict, quiet            bool
	lengthsAdvisory                                     bool
	slos                                                multiFlag
	thinkScale                                          float64
	maxThink                                            time.Duration
	vllm                                                vllmFlags
	cancelRate                                          float64
	cancelAfter                                         time.Duration
	requestsOut                                         string
	hazardsOff                                          multiFlag
	starvedRetries                                      int
	fitMargin                                           float64
	untilDecided                                        bool
	minDuration                                         time.Duration
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func (f *runFlags) register(fs *flag.FlagSet) { f.registerDeciding(fs, false) }

// registerDeciding adds the run flags with --until-decided defaulting to
// untilDecided: off for run (a gate's choice), on for sweep and tune.
func (f *runFlags) registerDeciding(fs *flag.FlagSet, untilDecided bool) {
	fs.BoolVar(&f.untilDecided, "until-decided", untilDecided, "stop each step once its verdict is decided, on intervals valid however often they are checked (looked at every second); --duration is then the cap")
	fs.DurationVar(&f.minDuration, "min-duration", 0, "with --until-decided: no step stops before this much is measured (default 10s, or --duration when shorter)")
	fs.StringVar(&f.target, "target", "sim", "sim, vllm, or the URL of an OpenAI-compatible server (API key from LLMSLO_API_KEY or OPENAI_API_KEY)")
	fs.StringVar(&f.fixture, "fixture", load.DefaultFixture, "fixture name (azure-code-2023, azure-conv-2023, fixed:IN:OUT, random:IN:OUT[:RANGE]) or path")
	fs.StringVar(&f.rates, "rates", "", "comma-separated request rates per second, e.g. 2,4,8 (sessions per second for a fixture with sessions)")
	fs.StringVar(&f.arrival, "arrival", "poisson", "poisson, constant, gamma:B, trace[:SPEED], ramp:FROM")
	fs.StringVar(&f.api, "api", "completions", "completions or chat")
	fs.StringVar(&f.model, "model", "", "model name (default: the first of GET /v1/models)")
	fs.StringVar(&f.report, "report", "", "write the JSON report to this file")
	fs.StringVar(&f.html, "html", "", "write an HTML report with charts to this file")
	fs.DurationVar(&f.duration, "duration", load.DefaultDuration, "measured duration of each step")
	fs.DurationVar(&f.warmup, "warmup", load.DefaultWarmup, "unmeasured warm-up before each step, at the step's rate")
	fs.DurationVar(&f.drain, "drain", 0, "bound on waiting for in-flight requests after a step (default max(30s, duration))")
	fs.DurationVar(&f.stallTimeout, "stall-timeout", 0, "abandon a request whose response sends nothing for this long (default 60s); it counts as a failure and as a lower bound in TTFT")
	fs.DurationVar(&f.requestTimeout, "request-timeout", 0, "abandon a request that takes longer than this in all (default 10m), counted as --stall-timeout's are")
	fs.Int64Var(&f.seed, "seed", load.DefaultSeed, "seed for sampling and arrivals")
	fs.IntVar(&f.maxModelLen, "max-model-len", 0, "clip requests to this many tokens of prompt and output (default: the max_model_len GET /v1/models reports)")
	fs.IntVar(&f.maxInFlight, "max-in-flight", 0, "safety cap on requests in flight; requests over it are dropped and flagged (0: none)")
	fs.BoolVar(&f.salt, "salt", true, "put a per-run nonce in every prompt")
	fs.BoolVar(&f.reset, "reset-prefix-cache", true, "reset the server's prefix cache before each step where it allows, once the server is idle")
	fs.BoolVar(&f.resetRunning, "reset-running-requests", false, "let that reset preempt requests the server still runs 10 s after the wait began (they are recomputed)")
	fs.BoolVar(&f.lengthsAdvisory, "lengths-advisory", false, "declare a server that stops at EOS whatever ignore_eos says: judge the outputs it gives, and say when the workload was lighter than asked (without it such a step is invalid, and a URL target seen ignoring ignore_eos is refused)")
	fs.BoolVar(&f.strict, "strict", false, "pass a latency SLO only when its 95% interval is under the limit")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress lines on stderr")
	fs.StringVar(&f.simArgs, "sim-args", "", "vLLM serve flags for --target sim, e.g. '--max-num-seqs 64 --profile h200-llama3-8b'")
	fs.Float64Var(&f.cancelRate, "cancel-rate", 0, "abandon this fraction of requests mid-stream, closing the connection as a user pressing stop does (a seeded draw per request); they are counted as abandoned, not as failures")
	fs.DurationVar(&f.cancelAfter, "cancel-after", 0, "how long after its intended send time an abandoned request is cancelled (needed with --cancel-rate)")
	fs.StringVar(&f.requestsOut, "requests-out", "", "write one JSON line per request to this file (docs/requests.md)")
	fs.Float64Var(&f.thinkScale, "think-time-scale", 1, "multiply the think time before each turn of a session replay (> 0; 1 as recorded)")
	fs.DurationVar(&f.maxThink, "max-think", 0, "cap a session turn's scaled think time (0: no cap)")
	fs.Var(&f.hazardsOff, "hazard-off", "do not judge this hazard, repeatable or comma-separated: "+strings.Join(verdict.HazardKinds, ", ")+"; the report lists it as not judged")
	fs.IntVar(&f.starvedRetries, "starved-retries", 0, "measure a step again, up to this many times, when its only hazard is client_saturation (a client starved by other work on its machine); the discarded attempts are listed in the report")
	fs.Float64Var(&f.fitMargin, "fit-margin", 1, "Fit's finding when the KV cache holds fewer than this many times max_num_seqs requests of the fixture's p95 size (0: 1)")
	fs.Var(&f.slos, "slo", "SLO, repeatable: 'ttft.p95<=500ms', 'itl.p99<=50ms', 'error_rate<=1%' (default: those three)")
	f.vllm.register(fs)
}

// plan turns the flags into a load.Plan, parsing each once, here. Only
// the flags count (and the API key's environment variables): no
// environment variable of the go test face changes what the command does.
func (f *runFlags) plan(stderr io.Writer) (load.Plan, error) {
	c := load.DefaultPlan()
	c.Duration, c.Warmup, c.Seed = f.duration, f.warmup, f.seed
	c.UntilDecided, c.MinDuration = f.untilDecided, f.minDuration
	c.MaxInFlight, c.Salt, c.ResetPrefixCache = f.maxInFlight, f.salt, f.reset
	c.ResetRunningRequests = f.resetRunning
	c.DrainTimeout, c.MaxModelLen, c.Strict = f.drain, f.maxModelLen, f.strict
	c.LengthsAdvisory = f.lengthsAdvisory
	c.StallTimeout, c.RequestTimeout = f.stallTimeout, f.requestTimeout
	c.FitMargin = f.fitMargin
	c.ThinkTimeScale, c.MaxThink = f.thinkScale, f.maxThink
	c.CancelRate, c.CancelAfter, c.RequestsOut = f.cancelRate, f.cancelAfter, f.requestsOut
	switch f.api {
	case "completions":
		c.API = workload.APICompletions
	case "chat":
		c.API = workload.APIChat
	default:
		return c, fmt.Errorf("--api %q: want completions or chat", f.api)
	}
	if len(f.slos) > 0 {
		slos, err := verdict.ParseSLOs(f.slos)
		if err != nil {
			return c, fmt.Errorf("--slo: %w", err)
		}
		c.SLOs = slos
	}
	if err := f.hazardConfig(&c); err != nil {
		return c, err
	}
	var notes io.Writer // where a container's start is announced
	if !f.quiet {
		c.Progress, notes = progressFor(stderr), stderr
	}
	if err := f.targetConfig(&c, notes); err != nil {
		return c, err
	}
	if err := f.baselineConfig(&c, notes); err != nil {
		return c, err
	}
	arr, err := arrival.Parse(f.arrival)
	if err != nil {
		return c, fmt.Errorf("--arrival: %w", err)
	}
	c.Arrival = arr
	rates, err := parseRates(f.rates)
	if err != nil {
		return c, err
	}
	if arr.Kind == arrival.Trace && arr.Speed > 0 && len(rates) > 0 {
		return c, errors.New("--arrival trace:SPEED replays the fixture's own pace: give no --rates")
	}
	c.Rates = rates
	if c.Fixture, err = formats.Open(f.fixture); err != nil {
		return c, fmt.Errorf("--fixture: %w", err)
	}
	return c, load.NameSettings(c.Validate(), planFlags)
}

// planFlags name the flag that sets each Plan field, for the messages of
// Plan validation, which checks every setting (load.NameSettings).
var planFlags = map[string]string{
	"Rates": "--rates", "Fixture": "--fixture", "Duration": "--duration", "Warmup": "--warmup", "DrainTimeout": "--drain",
	"CancelRate": "--cancel-rate", "CancelAfter": "--cancel-after", "RequestsOut": "--requests-out",
	"ThinkTimeScale": "--think-time-scale", "MaxThink": "--max-think", "StarvedRetries": "--starved-retries",
	"FitMargin": "--fit-margin", "MinDuration": "--min-duration", "UntilDecided": "--until-decided", "BaselineTolerance": "--baseline-tolerance",
	"Versus": "--versus", "VersusMode": "--versus-mode", "VersusTolerance": "--versus-tolerance", "VersusBlock": "--versus-block", "Baseline": "--baseline", "Overload": "--overload",
	"ResetRunningRequests": "--reset-running-requests", "ResetPrefixCache": "--reset-prefix-cache=false",
}

// hazardConfig turns --hazard-off and --starved-retries into c.
func (f *runFlags) hazardConfig(c *load.Plan) error {
	for _, list := range f.hazardsOff {
		for _, kind := range strings.Split(list, ",") {
			kind = strings.TrimSpace(kind)
			if !slices.Contains(verdict.HazardKinds, kind) {
				return fmt.Errorf("--hazard-off %q: no such hazard (known: %s)", kind, strings.Join(verdict.HazardKinds, ", "))
			}
			if !c.Thresholds.IsOff(kind) {
				c.Thresholds.Off = append(c.Thresholds.Off, kind)
			}
		}
	}
	c.StarvedRetries = f.starvedRetries
	return nil
}

// simOptions are a target's options for the model, with the simulator
// configured by the vLLM serve flags in args (flag names them for an
// error).
func simOptions(model, flag, args string) (targets.Options, error) {
	o := targets.Options{Model: model, APIKey: targets.APIKeyFromEnv()}
	if args != "" {
		o.SimArgs = strings.Fields(args)
		sim, err := vllmsim.ParseServeArgs(o.SimArgs)
		if err != nil {
			return o, fmt.Errorf("%s: %w", flag, err)
		}
		o.Sim = sim
	}
	return o, nil
}

// targetConfig turns --target, --model, --sim-args and the vllm flags into
// c.Target; notes, when not nil, is told that a container is starting.
func (f *runFlags) targetConfig(c *load.Plan, notes io.Writer) error {
	o, err := simOptions(f.model, "--sim-args", f.simArgs)
	if err != nil {
		return err
	}
	if err := f.vllm.options(f.target, &o, notes); err != nil {
		return err
	}
	t, err := targets.Parse(f.target, o)
	if err != nil {
		return fmt.Errorf("--target: %w", err)
	}
	c.Target = t
	return nil
}

// parseRates reads --rates; Plan validation checks the rates it holds.
func parseRates(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []float64
	for _, part := range strings.Split(s, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil {
			return nil, fmt.Errorf("--rates: %q is not a rate in requests per second (a positive number)", part)
		}
		out = append(out, r)
	}
	return out, nil
}

// planHooks are a command's own checks around the plan its run flags
// build: before, of its own flags; after, completing the plan.
type planHooks struct {
	before func(set map[string]bool) error
	after  func(set map[string]bool, plan *load.Plan, stderr io.Writer) error
}

// parse reads args into fs and builds the plan, running every check that
// can fail before the first request. On a usage error (or -h) it writes
// the message under the command's name and returns the exit code, with ok
// false.
func (f *runFlags) parse(name string, fs *flag.FlagSet, args []string, stderr io.Writer, hooks planHooks) (plan load.Plan, code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		return plan, parseExit(err), false
	}
	if fs.NArg() > 0 {
		return plan, unexpectedArg(name, fs, args, stderr), false
	}
	plan, err := f.checkedPlan(explicitFlags(fs), stderr, hooks)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return plan, exitUsage, false
	}
	return plan, 0, true
}

// checkedPlan builds the plan from the flags given (set), with the
// command's own checks in their place.
func (f *runFlags) checkedPlan(set map[string]bool, stderr io.Writer, hooks planHooks) (load.Plan, error) {
	if err := f.checkPairs(set); err != nil {
		return load.Plan{}, err
	}
	if hooks.before != nil {
		if err := hooks.before(set); err != nil {
			return load.Plan{}, err
		}
	}
	plan, err := f.plan(stderr)
	if err != nil {
		return plan, err
	}
	if err := f.checkOutputs(); err != nil {
		return plan, err
	}
	if hooks.after != nil {
		err = hooks.after(set, &plan, stderr)
	}
	return plan, err
}

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("llmslo run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f runFlags
	f.register(fs)
	f.registerBaseline(fs)
	var sf shardFlags
	sf.register(fs)
	var vf versusFlags
	vf.register(fs)
	overload := fs.Bool("overload", false, "run each rate as an overload step, past the knee: judged by the overload gate (fast 503s for shed requests, SLOs for admitted ones, no timeouts) instead of the error guard")
	shedP99 := fs.Duration("shed-p99", verdict.DefaultShedP99, "with --overload: the limit on the p99 of a shed request's time to its 503")
	cfg, code, ok := f.parse("llmslo run", fs, args, stderr, planHooks{
		before: func(set map[string]bool) error {
			if set["shed-p99"] && !*overload {
				return errors.New("--shed-p99 bounds the overload gate: it needs --overload")
			}
			return nil
		},
		after: func(set map[string]bool, cfg *load.Plan, stderr io.Writer) error {
			var notes io.Writer
			if !f.quiet {
				notes = stderr
			}
			if err := vf.config(cfg, &f, set, notes); err != nil {
				return err
			}
			return sf.apply(cfg)
		},
	})
	if !ok {
		return code
	}
	if *overload {
		cfg.Overload = &verdict.OverloadSettings{ShedP99: *shedP99}
	}
	if !f.quiet {
		warnShortSteps(cfg, stderr)
	}
	rep, err := load.Measure(ctx, cfg)
	if rep == nil {
		fmt.Fprintf(stderr, "llmslo run: %v\n", load.NameSettings(err, planFlags))
		return exitUsage
	}
	return shardExit(cfg, finish(rep, err, f, stdout, stderr), rep, err, stderr)
}

// finish prints the summary, writes the report, and maps the verdict to
// the exit code.
func finish(rep *report.Report, runErr error, f runFlags, stdout, stderr io.Writer) int {
	render.WriteSummary(stdout, rep)
	if f.report != "" {
		if err := rep.WriteJSON(f.report); err != nil {
			fmt.Fprintf(stderr, "llmslo: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stderr, "report written to %s\n", f.report)
	}
	if f.html != "" {
		if err := render.WriteHTMLFile(f.html, rep); err != nil {
			fmt.Fprintf(stderr, "llmslo: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stderr, "HTML report written to %s\n", f.html)
	}
	if f.requestsOut != "" {
		fmt.Fprintf(stderr, "per-request records written to %s\n", f.requestsOut)
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "llmslo: run stopped early: %v (the report is marked partial)\n", withRecordHint(runErr))
	}
	recorded := true
	if f.updateBaseline {
		if err := load.RecordBaseline(rep, f.baseline); err != nil {
			fmt.Fprintf(stderr, "llmslo: %v\n", err)
			recorded = false
		} else {
			fmt.Fprintf(stderr, "baseline recorded in %s\n", f.baseline)
		}
	}
	switch rep.Verdict {
	case report.VerdictInvalid:
		return exitInvalid
	case report.VerdictFail:
		return exitFail
	}
	if runErr != nil || rep.Partial {
		return exitInvalid // cut short: what was measured passed, but the run cannot vouch for the rest
	}
	if !recorded {
		return exitUsage // asked to record a baseline and did not
	}
	return exitPass
}

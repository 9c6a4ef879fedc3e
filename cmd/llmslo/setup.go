package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmslo/llmslo/internal/outputs"
	"github.com/llmslo/llmslo/internal/targets"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/verdict"
)

// Setup checks: every mistake in the flags is found before the first
// request, so that a run never measures for minutes and then fails on a
// path or a flag it could have refused at once.

// explicitFlags names the flags given on the command line, whatever
// their values.
func explicitFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// baselineFlags are run's alone: only a run at fixed rates has steps a
// recorded run can match.
var baselineFlags = []string{"baseline", "baseline-tolerance", "update-baseline"}

// refuseBaselineFlags finds a baseline flag in the arguments of a command
// that does not register them, so that it is refused with the reason
// rather than as an unknown flag.
func refuseBaselineFlags(name string, args []string) error {
	for _, a := range args {
		if a == "--" {
			return nil
		}
		flagName, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && slices.Contains(baselineFlags, flagName) {
			return fmt.Errorf("--%s: only llmslo run records and compares baselines; %s picks rates no recorded run has", flagName, name)
		}
	}
	return nil
}

// checkPairs refuses a flag given where it means nothing: for another
// target, or without the flag it qualifies.
func (f *runFlags) checkPairs(set map[string]bool) error {
	target := strings.TrimSpace(f.target)
	if set["sim-args"] && target != targets.Sim {
		return fmt.Errorf("--sim-args is for --target sim; --target %s would ignore it", target)
	}
	for _, name := range []string{"image", "gpus", "vllm-args", "hf-cache", "startup-timeout"} {
		if set[name] && target != targets.VLLM {
			return fmt.Errorf("--%s is for --target vllm; --target %s would ignore it", name, target)
		}
	}
	switch {
	case set["until-decided"] && f.untilDecided && set["overload"]:
		return errors.New("--until-decided stops a step once decided; an --overload step is judged by the overload gate on its whole window")
	case set["min-duration"] && !f.untilDecided:
		return errors.New("--min-duration is the floor of a step run --until-decided; without it every step runs its --duration")
	case set["baseline-tolerance"] && f.baseline == "":
		return errors.New("--baseline-tolerance needs --baseline FILE to compare with")
	case set["baseline-tolerance"] && f.updateBaseline:
		return errors.New("--baseline-tolerance applies when comparing; --update-baseline records instead")
	}
	return nil
}

// checkPrecision refuses a bisection precision outside [0, 1).
func checkPrecision(p float64) error {
	if math.IsNaN(p) || p < 0 || p >= 1 {
		return fmt.Errorf("--precision %g: want a fraction in [0, 1)", p)
	}
	return nil
}

// checkOutputs makes sure every file the run will write can be written,
// before the first request: --report, --html, --requests-out, and the
// baseline when it is to be recorded. It leaves nothing behind.
func (f *runFlags) checkOutputs() error {
	outputs := [][2]string{{"--report", f.report}, {"--html", f.html}, {"--requests-out", f.requestsOut}}
	if f.updateBaseline {
		outputs = append(outputs, [2]string{"--baseline", f.baseline})
	}
	return checkOutputPaths(outputs)
}

// checkOutputPaths probes each {flag, path} pair whose path is set.
func checkOutputPaths(paths [][2]string) error {
	seen := map[string]string{}
	for _, o := range paths {
		if o[1] == "" {
			continue
		}
		abs, _ := filepath.Abs(o[1])
		if other, dup := seen[abs]; dup {
			return fmt.Errorf("%s and %s name the same file %s", other, o[0], o[1])
		}
		seen[abs] = o[0]
		if err := outputs.CheckWritable(o[1]); err != nil {
			return fmt.Errorf("%s %s: %w", o[0], o[1], err)
		}
	}
	return nil
}

// defaultMaxDuration caps the step length a search chooses by itself.
const defaultMaxDuration = 5 * time.Minute

// stepSamples finds a search's lowest rate that cannot give a gated
// percentile its samples in the plan's duration: that step would be
// invalid and stop the search. Bisection only probes rates between the
// given ones, so the lowest is the one to check. need is the duration that
// gives them, 20% over and rounded up to 5 s as the too_few_samples
// hazard's fix is.
func stepSamples(c load.Plan) (s verdict.ShortStep, rate float64, need time.Duration, short bool) {
	if len(c.Rates) == 0 || c.Fixture == nil || c.Fixture.Sessions != nil {
		return s, 0, 0, false // sessions: requests per session vary; trace replay: no rates
	}
	rate = slices.Min(c.Rates)
	secs := c.Duration.Seconds() * (1 - c.CancelRate)
	s, short = verdict.PlannedShortStep(c.SLOs, c.Thresholds, rate, secs, c.Fixture.Info().OutputTokens.Mean)
	need = c.WholeBlocks(time.Duration(math.Ceil(s.NeedSecs/(1-c.CancelRate)*1.2/5)*5) * time.Second)
	return s, rate, need, short
}

// checkStepSamples refuses a --duration given too short for the lowest
// rate's samples.
func checkStepSamples(c load.Plan) error {
	s, rate, need, short := stepSamples(c)
	if !short {
		return nil
	}
	return fmt.Errorf("--duration %v: the step at %g req/s gives about %.0f samples of %s, which needs %.0f for a 95%% interval; "+
		"at that rate it needs --duration %v (or raise the lowest of --rates, or --hazard-off too_few_samples)",
		c.Duration, rate, s.Expect, s.SLO.Name(), s.Need, need)
}

// warnShortSteps tells run, whose rates are the user's to choose, that
// its lowest rate will likely be invalid for too few samples.
func warnShortSteps(c load.Plan, stderr io.Writer) {
	if s, rate, need, short := stepSamples(c); short {
		fmt.Fprintf(stderr, "note: the step at %g req/s gives about %.0f samples of %s in %v, of the %.0f it needs: "+
			"it will be invalid unless its interval settles the SLO; --duration %v would give them\n",
			rate, s.Expect, s.SLO.Name(), c.Duration, s.Need, need)
	}
}

// sizeDuration lengthens the steps, --duration not given, to what the
// lowest rate needs, up to --max-duration, and says so.
func (s *searchFlags) sizeDuration(c *load.Plan, stderr io.Writer) error {
	short, rate, need, ok := stepSamples(*c)
	if !ok {
		return nil
	}
	if need > *s.maxDuration {
		return fmt.Errorf("the step at %g req/s needs %v for %.0f samples of %s, over --max-duration %v: raise the lowest of --rates, or --max-duration",
			rate, need, short.Need, short.SLO.Name(), *s.maxDuration)
	}
	fmt.Fprintf(stderr, "steps last %v, not %v: the step at %g req/s needs that for %.0f samples of %s (capped by --max-duration %v)\n",
		need, c.Duration, rate, short.Need, short.SLO.Name(), *s.maxDuration)
	c.Duration = need
	return nil
}

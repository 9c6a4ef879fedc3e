package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/tune"
)

// searchFlags are what sweep and tune read alike: the run's flags and the
// bisection's, checked the same way.
type searchFlags struct {
	run         runFlags
	refine      *int
	precision   *float64
	maxDuration *time.Duration
	// pairs, when set, refuses the command's own flags given where they
	// mean nothing, before the plan is built.
	pairs func(set map[string]bool) error
}

// registerSearch adds the run's flags and the bisection's to fs, with
// each command's own defaults and words.
func registerSearch(fs *flag.FlagSet, precision float64, refineHelp, precisionHelp string) *searchFlags {
	s := &searchFlags{}
	s.run.registerDeciding(fs, true)
	s.refine = fs.Int("refine", 3, refineHelp)
	s.precision = fs.Float64("precision", precision, precisionHelp)
	s.maxDuration = fs.Duration("max-duration", defaultMaxDuration, "cap on the step length chosen when --duration is not given: the length the lowest rate needs for its gated percentiles' samples")
	return s
}

// parse reads args and builds the plan; on a usage error it writes the
// message under the command's name and returns the exit code, with ok
// false.
func (s *searchFlags) parse(name string, fs *flag.FlagSet, args []string, stderr io.Writer) (plan load.Plan, code int, ok bool) {
	if err := refuseBaselineFlags(name, args); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return plan, exitUsage, false
	}
	return s.run.parse(name, fs, args, stderr, s.hooks())
}

// hooks are the bisection's checks around the plan the run flags build.
func (s *searchFlags) hooks() planHooks { return planHooks{before: s.checkOwn, after: s.sizeSteps} }

// check builds the plan and runs every check that can fail before the
// first request.
func (s *searchFlags) check(set map[string]bool, stderr io.Writer) (load.Plan, error) {
	return s.run.checkedPlan(set, stderr, s.hooks())
}

// checkOwn checks the bisection's flags and the command's pairs.
func (s *searchFlags) checkOwn(set map[string]bool) error {
	if *s.refine < 0 {
		return errors.New("--refine must not be negative")
	}
	if err := checkPrecision(*s.precision); err != nil {
		return err
	}
	switch {
	case set["max-duration"] && set["duration"]:
		return errors.New("--max-duration caps the step length chosen when --duration is not given; --duration sets it")
	case *s.maxDuration <= 0:
		return fmt.Errorf("--max-duration %v: want a positive duration", *s.maxDuration)
	}
	if s.pairs != nil {
		return s.pairs(set)
	}
	return nil
}

// sizeSteps checks the step length given, or chooses one.
func (s *searchFlags) sizeSteps(set map[string]bool, plan *load.Plan, stderr io.Writer) error {
	if set["duration"] {
		return checkStepSamples(*plan)
	}
	return s.sizeDuration(plan, stderr)
}

// search is the bisection the flags ask for.
func (s *searchFlags) search() tune.Search {
	return tune.Search{Refine: *s.refine, Precision: *s.precision}
}

// kneeFound turns a failing exit into a pass when the run found its knee:
// steps above it fail by design.
func kneeFound(code int, rep *report.Report, err error) int {
	if code == exitFail && rep.Capacity != nil && rep.Capacity.PassRate > 0 && err == nil {
		return exitPass
	}
	return code
}

package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
)

// searchFlags are what sweep and tune read alike: the run's flags and the
// bisection's, checked the same way.
type searchFlags struct {
	run       runFlags
	refine    *int
	precision *float64
}

// registerSearch adds the run's flags and the bisection's to fs, with
// each command's own defaults and words.
func registerSearch(fs *flag.FlagSet, precision float64, refineHelp, precisionHelp string) *searchFlags {
	s := &searchFlags{}
	s.run.register(fs)
	s.refine = fs.Int("refine", 3, refineHelp)
	s.precision = fs.Float64("precision", precision, precisionHelp)
	return s
}

// parse reads args and builds the plan; on a usage error it writes the
// message under the command's name and returns the exit code, with ok
// false.
func (s *searchFlags) parse(name string, fs *flag.FlagSet, args []string, stderr io.Writer) (plan load.Plan, code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		return plan, parseExit(err), false
	}
	if fs.NArg() > 0 {
		return plan, unexpectedArg(name, fs, args, stderr), false
	}
	if *s.refine < 0 {
		fmt.Fprintf(stderr, "%s: --refine must not be negative\n", name)
		return plan, exitUsage, false
	}
	plan, err := s.run.plan(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return plan, exitUsage, false
	}
	return plan, 0, true
}

// search is the bisection the flags ask for.
func (s *searchFlags) search() load.Search {
	return load.Search{Refine: *s.refine, Precision: *s.precision}
}

// kneeFound turns a failing exit into a pass when the run found its knee:
// steps above it fail by design.
func kneeFound(code int, rep *report.Report, err error) int {
	if code == exitFail && rep.Capacity != nil && rep.Capacity.PassRate > 0 && err == nil {
		return exitPass
	}
	return code
}

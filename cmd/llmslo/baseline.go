package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/llmslo/llmslo/load"
)

// registerBaseline adds the baseline flags, run's alone (sweep and tune
// choose rates no recorded run has).
func (f *runFlags) registerBaseline(fs *flag.FlagSet) {
	fs.StringVar(&f.baseline, "baseline", "", "compare each step with the same step of this recorded report; a gated percentile slower by more than --baseline-tolerance fails")
	fs.Float64Var(&f.baselineTolerance, "baseline-tolerance", load.DefaultBaselineTolerance, "slowdown allowed against the baseline, as a fraction")
	fs.BoolVar(&f.updateBaseline, "update-baseline", false, "record this run as the --baseline file instead of comparing with it (each step runs its whole --duration, --until-decided or not)")
}

// baselineConfig checks the baseline flags and reads the baseline to
// compare with. A recording runs whole windows (load.Plan.ForRecording),
// so --until-decided is left to the runs compared with it, and notes (nil
// under --quiet) is told so.
func (f *runFlags) baselineConfig(c *load.Plan, notes io.Writer) error {
	switch {
	case f.updateBaseline && f.baseline == "":
		return errors.New("--update-baseline needs --baseline FILE")
	}
	if f.updateBaseline && c.ForRecording() && notes != nil {
		fmt.Fprintf(notes, "recording a baseline: each step runs its whole --duration %v (--until-decided stops the runs compared with it)\n", c.Duration)
	}
	c.BaselineTolerance = f.baselineTolerance
	if f.baseline != "" && !f.updateBaseline {
		b, err := load.ReadBaseline(f.baseline)
		if err != nil {
			return withRecordHint(err)
		}
		c.Baseline = b
	}
	return nil
}

// withRecordHint says how to record the baseline when err asks for it.
func withRecordHint(err error) error {
	if load.BaselineMissing(err) {
		return fmt.Errorf("%w: record it with llmslo run --baseline FILE --update-baseline", err)
	}
	return err
}

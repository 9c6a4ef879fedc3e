package slotest

import (
	"flag"
	"fmt"
	"os"

	"github.com/llmslo/llmslo/load"
)

// updateBaselines is -slotest.update: record baselines instead of comparing
// with them, as golden files are refreshed. Namespaced so that it cannot
// collide with a test package's own -update flag.
var updateBaselines = flag.Bool("slotest.update", false, "record slotest baselines instead of comparing with them")

// EnvUpdateBaselines, set to 1, does what -slotest.update does, for runs
// whose flags are hard to reach.
const EnvUpdateBaselines = "SLOTEST_UPDATE"

// DefaultBaselineTolerance is how much slower than its baseline a gated
// percentile may be before it counts as a regression.
const DefaultBaselineTolerance = load.DefaultBaselineTolerance

// Updating reports whether baselines are being recorded in this run.
func Updating() bool { return *updateBaselines || os.Getenv(EnvUpdateBaselines) == "1" }

// WithBaseline compares each step with the same-named step of the report
// at path (testdata/NAME.json by convention), failing a step whose gated
// latency percentiles regressed by more than tolerance (a fraction; zero
// means DefaultBaselineTolerance). Under -slotest.update, or with
// SLOTEST_UPDATE=1, the run's report is written to path instead, each
// step measured over its whole window even WithUntilDecided (a comparison
// uses only the seconds both windows measured).
func WithBaseline(path string, tolerance float64) Option {
	if tolerance <= 0 {
		tolerance = DefaultBaselineTolerance
	}
	return func(c *config) { c.baselinePath, c.BaselineTolerance = path, tolerance }
}

// withRecordHint says how to record the baseline when err asks for it.
func withRecordHint(err error) error {
	if load.BaselineMissing(err) {
		return fmt.Errorf("%w: record it with go test -slotest.update (or %s=1)", err, EnvUpdateBaselines)
	}
	return err
}

package slotest

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
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
const DefaultBaselineTolerance = 0.10

// Updating reports whether baselines are being recorded in this run.
func Updating() bool { return *updateBaselines || os.Getenv(EnvUpdateBaselines) == "1" }

// WithBaseline compares each step with the same-named step of the report
// at path (testdata/NAME.json by convention), failing a step whose gated
// latency percentiles regressed by more than tolerance (a fraction; zero
// means DefaultBaselineTolerance). Under -slotest.update, or with
// SLOTEST_UPDATE=1, the run's report is written to path instead.
func WithBaseline(path string, tolerance float64) Option {
	if tolerance <= 0 {
		tolerance = DefaultBaselineTolerance
	}
	return func(c *Config) { c.Baseline, c.BaselineTolerance = path, tolerance }
}

// LoadBaseline reads a recorded report.
func LoadBaseline(path string) (*load.Report, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("slotest: no baseline at %s: record one with go test -slotest.update (or SLOTEST_UPDATE=1)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("slotest: baseline: %w", err)
	}
	var r load.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("slotest: baseline %s: %w", path, err)
	}
	return &r, nil
}

// CompareBaseline checks every latency SLO of st against the same step of
// base. It is an error when base has no such step or did not measure the
// percentile: a gate must not pass for want of something to compare with.
func CompareBaseline(base *load.Report, st *load.StepReport, tolerance float64) ([]load.BaselineCheck, error) {
	var bs *load.StepReport
	for i := range base.Steps {
		if base.Steps[i].Name == st.Name {
			bs = &base.Steps[i]
		}
	}
	if bs == nil {
		return nil, fmt.Errorf("slotest: the baseline has no step %s: record it again with -slotest.update", st.Name)
	}
	var out []load.BaselineCheck
	for _, r := range st.SLO {
		if r.Metric == string(load.MetricErrorRate) || r.Samples == 0 {
			continue
		}
		b, ok := findResult(bs.SLO, r.Metric, r.Percentile)
		if !ok || b.Samples == 0 {
			return nil, fmt.Errorf("slotest: the baseline's step %s has no %s.p%g: record it again with -slotest.update", st.Name, r.Metric, r.Percentile)
		}
		c := load.BaselineCheck{Metric: r.Metric, Percentile: r.Percentile, BaselineMs: b.ObservedMs,
			ObservedMs: r.ObservedMs, CI95Ms: r.CI95Ms, Tolerance: tolerance}
		bound := b.ObservedMs * (1 + tolerance)
		if r.CI95Ms != nil {
			c.Regressed = r.CI95Ms[0] > bound
		} else {
			c.Regressed = r.ObservedMs > bound
		}
		out = append(out, c)
	}
	return out, nil
}

func findResult(rs []load.SLOResult, metric string, p float64) (load.SLOResult, bool) {
	for _, r := range rs {
		if r.Metric == metric && r.Percentile == p {
			return r, true
		}
	}
	return load.SLOResult{}, false
}

// regressions lists the checks that regressed, readably.
func regressions(cs []load.BaselineCheck) []string {
	var out []string
	for _, c := range cs {
		if c.Regressed {
			out = append(out, fmt.Sprintf("%s.p%g %.1f ms against a baseline of %.1f ms (more than %.0f%% slower)",
				c.Metric, c.Percentile, c.ObservedMs, c.BaselineMs, 100*c.Tolerance))
		}
	}
	return out
}

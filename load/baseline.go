package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
)

// DefaultBaselineTolerance is how much slower than its baseline a gated
// percentile may be before it counts as a regression.
const DefaultBaselineTolerance = 0.10

// ReadBaseline reads a recorded report. A missing file is an error for
// which BaselineMissing is true.
func ReadBaseline(path string) (*report.Report, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no baseline at %s: %w", path, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	var r report.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}
	return &r, nil
}

// BaselineMissing reports whether err says the baseline must be recorded
// (again): the file is missing, or it lacks a step or percentile the run
// gates. Each face adds how its users record one.
func BaselineMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, verdict.ErrBaselineStep)
}

// RecordBaseline writes the run's report as the baseline at path, refusing
// one that was cut short, cannot be trusted, or has a step stopped when
// decided: a comparison uses only the seconds both windows measured, so
// every gate compared with such a step would compare that much and lose
// power (docs/baselines.md). A plan made ready with ForRecording before it
// runs is never refused for the last.
func RecordBaseline(r *report.Report, path string) error {
	early := r.StoppedWhenDecided()
	switch {
	case r.Partial:
		return fmt.Errorf("not recording a baseline from a run cut short (%s)", r.Reason)
	case r.Verdict == report.VerdictInvalid:
		return errors.New("not recording a baseline from a measurement that cannot be trusted; see the hazards")
	case early != nil:
		return fmt.Errorf("not recording a baseline from %s; record it without until-decided", stoppedEarly(early))
	}
	if err := r.WriteJSON(path); err != nil {
		return fmt.Errorf("record baseline: %w", err)
	}
	return nil
}

// ForRecording readies p to record a baseline: every step runs its whole
// window, UntilDecided or not, since a gate compared with a step stopped
// early would compare only its seconds (RecordBaseline). It says whether
// it changed p, for a face to tell its user.
func (p *Plan) ForRecording() bool {
	changed := p.UntilDecided
	p.UntilDecided, p.MinDuration = false, 0
	return changed
}

// ErrBaselineMismatch is wrapped by the errors of a baseline recorded with
// another workload (fixture, arrival, steps, SLOs, seed, API, duration,
// warm-up or model): its steps did not send what this run's do, so a
// comparison would say nothing of the server.
var ErrBaselineMismatch = errors.New("cannot compare with the baseline")

// ErrBaselineUnchecked is wrapped when the baseline predates the recorded
// run settings (report.RunInfo), so that it cannot be checked.
var ErrBaselineUnchecked = errors.New("cannot check the baseline against this run")

// runInfo is what the plan sends, as a report records it.
func (p *Plan) runInfo() *report.RunInfo {
	return &report.RunInfo{Arrival: p.Arrival.String(), Steps: p.stepNames(), API: string(p.API),
		DurationS: p.Duration.Seconds(), WarmupS: p.Warmup.Seconds(), FixtureSHA256: p.Fixture.ContentSHA256()}
}

// stepNames are the names of the plan's steps, in order.
func (p *Plan) stepNames() []string {
	var names []string
	for _, r := range p.runRates() {
		names = append(names, stepName(p.Arrival, r))
	}
	return names
}

// checkBaseline refuses a baseline recorded with another workload, before
// the target starts: every setting that decides which requests a step
// sends and when, and how it is judged. Server settings and the target are
// not checked: they are what a baseline compares.
func (p *Plan) checkBaseline() error {
	b := p.Baseline
	if b == nil {
		return nil
	}
	if b.Run == nil || b.Fixture == nil {
		return fmt.Errorf("%w: it was recorded before llmslo recorded a run's arrival, steps, API, duration, warm-up and fixture content; record it again",
			ErrBaselineUnchecked)
	}
	if st := b.StoppedWhenDecided(); st != nil {
		return fmt.Errorf("%w: the baseline has %s; record it again (a recording runs whole windows)", ErrBaselineMismatch, stoppedEarly(st))
	}
	run := p.runInfo()
	var diffs []string
	differ := func(field, recorded, current string) {
		if recorded != current {
			diffs = append(diffs, fmt.Sprintf("the baseline was recorded with %s %s, this run uses %s", field, recorded, current))
		}
	}
	if b.Run.FixtureSHA256 != run.FixtureSHA256 {
		differ("fixture", fixtureLabel(b.Fixture.Name, b.Run.FixtureSHA256), fixtureLabel(p.Fixture.Name, run.FixtureSHA256))
	}
	differ("arrival", b.Run.Arrival, run.Arrival)
	differ("steps", strings.Join(recordedSteps(b), ","), strings.Join(run.Steps, ","))
	differ("SLOs", sloSet(b.SLO), sloSet(p.sloSpecs()))
	differ("seed", strconv.FormatInt(b.Seed, 10), strconv.FormatInt(p.Seed, 10))
	differ("API", b.Run.API, run.API)
	differ("duration", secondsText(b.Run.DurationS), secondsText(run.DurationS))
	differ("warm-up", secondsText(b.Run.WarmupS), secondsText(run.WarmupS))
	return mismatch(diffs)
}

// checkBaselineModel refuses a baseline of another model, once the
// target's model is known (named, or the first the server lists).
func checkBaselineModel(b *report.Report, model string) error {
	if b == nil || b.Target.Model == model {
		return nil
	}
	return mismatch([]string{fmt.Sprintf("the baseline was recorded with model %s, this run uses %s", b.Target.Model, model)})
}

// stoppedEarly names a step stopped when decided, and what that costs a
// comparison with it.
func stoppedEarly(st *report.StepReport) string {
	u := st.UntilDecided
	return fmt.Sprintf("step %s, stopped when decided at %.0f s of its %.0f s cap: a gate compared with it would compare only those seconds", st.Name, u.AtS, u.CapS)
}

func mismatch(diffs []string) error {
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s; record the baseline again with this run's settings, or run with the baseline's",
		ErrBaselineMismatch, strings.Join(diffs, "; "))
}

// recordedSteps are the baseline's steps, as it ran them.
func recordedSteps(b *report.Report) []string {
	names := make([]string, len(b.Steps))
	for i := range b.Steps {
		names[i] = b.Steps[i].Name
	}
	return names
}

func fixtureLabel(name, hash string) string {
	return fmt.Sprintf("%s (content sha256 %.12s)", name, hash)
}

// sloSpecs are the SLOs a report of the plan states.
func (p *Plan) sloSpecs() []report.SLOSpec {
	var out []report.SLOSpec
	for _, s := range verdict.Guarded(p.SLOs) {
		out = append(out, s.Spec())
	}
	return out
}

// sloSet writes SLOs in a canonical order, to compare and to name them.
func sloSet(specs []report.SLOSpec) string {
	out := make([]string, len(specs))
	for i, s := range specs {
		if s.Metric == string(report.MetricErrorRate) {
			out[i] = fmt.Sprintf("%s<=%g%%", s.Metric, 100*s.MaxRate)
			continue
		}
		limit := time.Duration(math.Round(s.LimitMs * float64(time.Millisecond)))
		out[i] = fmt.Sprintf("%s.p%g<=%s", s.Metric, s.Percentile, limit)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

func secondsText(s float64) string {
	return time.Duration(s * float64(time.Second)).String()
}

// followsBaseline says the step at rate comes where the baseline's step of
// its name came, after the same steps: its requests start where the
// baseline's did. A step run alone (a subtest picked by go test -run) does
// not, and is compared unpaired.
func (m *Measurement) followsBaseline(rate float64) bool {
	recorded := recordedSteps(m.plan.Baseline)
	k := len(m.report.Steps)
	if k >= len(recorded) || recorded[k] != m.StepName(rate) {
		return false
	}
	for i := range k {
		if m.report.Steps[i].Name != recorded[i] {
			return false
		}
	}
	return true
}

package main

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/llmslo/llmslo/fixtures/formats"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/simtarget"
)

// gateSpec is a gate's load and SLOs: one step of the fixture at rate.
type gateSpec struct {
	fixture string // empty: azure-conv-2023
	rate    float64
	d       time.Duration
	warmup  time.Duration
	slos    []string
	// tolerance is the baseline comparison's (power mode).
	tolerance float64
	// firstSeed is the refusal runs' first seed; run i takes firstSeed+i,
	// so a second batch with another first seed adds independent runs.
	firstSeed int64
	// trialSeed is the power mode's: trial i takes trialSeed+i.
	trialSeed int64
	// untilDecided runs the step until decided, d being its cap, and no
	// shorter than minDuration (0: load.DefaultMinDuration).
	untilDecided bool
	minDuration  time.Duration
	// virtual serves every simulator on in-memory connections, for a run
	// in virtual time (runFlags).
	virtual bool
	// drift, jitter, phase and versus: the power mode under drift
	// (drift.go).
	drift       vllmsim.Drift
	jitter      float64
	opposite    bool
	versus      bool
	versusMode  string
	versusBlock time.Duration
}

// target is the simulator configured by cfg, in virtual time when g is.
func (g gateSpec) target(cfg vllmsim.Config) load.Target {
	return simtarget.Sim{Config: cfg, Virtual: g.virtual}
}

// clock says, for a table's last line, when the runs were in virtual time.
func (g gateSpec) clock() string {
	if g.virtual {
		return "; in virtual time (the client never late)"
	}
	return ""
}

// steps says in words how long the gate's step runs, warm-up included.
func (g gateSpec) steps() string {
	if !g.untilDecided {
		return fmt.Sprintf("%v steps (%v warm-up)", g.d, g.warmup)
	}
	floor := load.DefaultMinDuration
	if g.minDuration > 0 {
		floor = g.minDuration
	}
	return fmt.Sprintf("steps until decided (%v floor, %v cap; %v warm-up)", min(floor, g.d), g.d, g.warmup)
}

// run runs the gate once against target with seed: one step, no retry of
// a starved step (StarvedRetries 0, as slotest's default).
func (g gateSpec) run(ctx context.Context, target load.Target, seed int64, baseline *report.Report) (*report.Report, error) {
	cfg, err := g.plan(target, seed)
	if err != nil {
		return nil, err
	}
	// A gate refuses a baseline of another seed (docs/baselines.md): the
	// unpaired row is compared after its run, as the gate would unpaired.
	unpaired := baseline != nil && baseline.Seed != seed
	if !unpaired {
		cfg.Baseline, cfg.BaselineTolerance = baseline, g.tolerance
	}
	rep, err := load.Measure(ctx, cfg)
	if err == nil && len(rep.Steps) != 1 {
		err = fmt.Errorf("the gate ran %d steps, want 1", len(rep.Steps))
	}
	if err == nil && unpaired {
		err = compareUnpaired(&rep.Steps[0], baseline, g.tolerance)
	}
	return rep, err
}

// plan is the gate's plan against target with seed.
func (g gateSpec) plan(target load.Target, seed int64) (load.Plan, error) {
	cfg := load.DefaultPlan()
	cfg.Target = target
	fx, err := formats.Open(cmp.Or(g.fixture, "azure-conv-2023"))
	if err != nil {
		return cfg, err
	}
	slos, err := verdict.ParseSLOs(g.slos)
	if err != nil {
		return cfg, err
	}
	cfg.Fixture, cfg.Rates, cfg.Seed, cfg.SLOs = fx, []float64{g.rate}, seed, slos
	cfg.Duration, cfg.Warmup = g.d, g.warmup
	cfg.UntilDecided, cfg.MinDuration = g.untilDecided, g.minDuration
	return cfg, nil
}

// compareUnpaired compares a step with a baseline of another seed and, as
// the gate does, fails a judged step that regressed.
func compareUnpaired(st *report.StepReport, baseline *report.Report, tolerance float64) error {
	checks, err := verdict.CompareBaseline(baseline, st, false, tolerance)
	if err != nil {
		return err
	}
	st.Baseline = checks
	if len(verdict.Regressions(checks)) > 0 && st.Verdict == report.VerdictPass {
		st.Verdict = report.VerdictFail
	}
	return nil
}

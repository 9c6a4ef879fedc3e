package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/vllmsim"
)

// The power mode under drift (docs/gatepower.md, "Drift"): every simulator
// drifts together (-drift), each with its own noise (-jitter); a recorded
// baseline meets the gate -phase later, or the gate runs side by side with
// an unchanged server (-versus) instead.
var (
	driftFlag  = flag.String("drift", "", "every simulator's drift, as --drift takes it: sine:10%:4m or step:10%@TIME")
	jitterFlag = flag.Float64("jitter", 0, "each simulator's own noise: every step up to this share slower, drawn from a seed of its own")
	opposite   = flag.Bool("opposite", false, "with a sine -drift: record each baseline with its window centred where the drift is at its fastest, and run the comparisons centred half a period later, at its slowest")
	versusFlag = flag.Bool("versus", false, "run each comparison side by side with an unchanged simulator (load.Plan.Versus) instead of against a recorded baseline")
	versusMode = flag.String("versus-mode", load.VersusTogether, "with -versus: together or alternate (load.Plan.VersusMode)")
	blockFlag  = flag.Duration("versus-block", 0, "with -versus-mode alternate: each block's measured length (0: load.DefaultVersusBlock)")
)

// driftSpec reads the drift flags into g.
func driftSpec(g *gateSpec) error {
	if *driftFlag != "" {
		d, err := vllmsim.ParseDrift(*driftFlag)
		if err != nil {
			return fmt.Errorf("-drift: %w", err)
		}
		g.drift = d
	}
	if *jitterFlag < 0 || *jitterFlag > 1 {
		return fmt.Errorf("-jitter %g: want a share in [0, 1]", *jitterFlag)
	}
	g.jitter, g.opposite, g.versus, g.versusMode, g.versusBlock = *jitterFlag, *opposite, *versusFlag, *versusMode, *blockFlag
	if g.opposite && g.drift.Kind != vllmsim.DriftSine {
		return fmt.Errorf("-opposite needs a sine -drift")
	}
	return nil
}

// serverSeeds numbers the simulators a run starts, so that each draws its
// own noise.
var serverSeeds atomic.Int64

// sim is the simulator configured by cfg, with the run's drift and a noise
// of its own, in virtual time when g is.
func (g gateSpec) sim(cfg vllmsim.Config) load.Target {
	cfg.Drift, cfg.StepJitter, cfg.Seed = g.drift, g.jitter, serverSeeds.Add(1)
	return g.target(cfg)
}

// versusRows are the side-by-side mode's rows: the unchanged server and
// each slower one, side by side with an unchanged one.
func versusRows(factors []float64) []*tally {
	rows := []*tally{newTally("unchanged, side by side")}
	for _, f := range factors {
		rows = append(rows, newTally(fmt.Sprintf("×%g step time, side by side", f)))
	}
	return rows
}

// versusTrial runs trial i side by side: the gate on the unchanged
// simulator and on each slower one, each beside an unchanged one, on one
// seed.
func versusTrial(ctx context.Context, i int, factors []float64, g gateSpec, slots chan struct{}, rows []*tally, mu *sync.Mutex) error {
	seed := g.trialSeed + int64(i)
	fs := append([]float64{1}, factors...)
	reps := make([]*report.Report, len(fs))
	errs := make([]error, len(fs))
	var wg sync.WaitGroup
	for k, f := range fs {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			reps[k], errs[k] = g.runVersus(ctx, f, seed)
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for k := range fs {
		if errs[k] != nil {
			return errs[k]
		}
		t, st := rows[k], &reps[k].Steps[0]
		t.count(st)
		decided := ""
		if u := st.UntilDecided; u != nil {
			decided = fmt.Sprintf(", %.1f s measured (decided=%v)", st.DurationS, u.Decided)
			if !u.Decided {
				decided += " [" + strings.TrimPrefix(u.Why, fmt.Sprintf("not decided by the cap (%g s), judged on the full window: ", u.CapS)) + "]"
			}
		}
		fmt.Fprintf(os.Stderr, "trial %d, %s: %s, alarm=%v%s%s%s\n", i, t.name, st.Verdict, t.alarm(st, st.Versus), decided, why(st), ratios(st.Versus))
	}
	return nil
}

// runVersus runs the gate once, side by side: a simulator whose steps
// take factor times as long beside an unchanged one.
func (g gateSpec) runVersus(ctx context.Context, factor float64, seed int64) (*report.Report, error) {
	cfg, err := g.plan(g.sim(vllmsim.Config{ProfileName: "h200-llama3-8b", StepTimeScale: factor}), seed)
	if err != nil {
		return nil, err
	}
	cfg.Versus, cfg.VersusTolerance = g.sim(vllmsim.Config{ProfileName: "h200-llama3-8b"}), g.tolerance
	cfg.VersusMode, cfg.VersusBlock = g.versusMode, g.versusBlock
	cfg.UntilDecided = cfg.UntilDecided && g.versusMode != load.VersusAlternate // alternating runs whole windows
	rep, err := load.Measure(ctx, cfg)
	if err == nil && len(rep.Steps) != 1 {
		err = fmt.Errorf("the gate ran %d steps, want 1", len(rep.Steps))
	}
	return rep, err
}

// waitPhase waits, with -opposite, until a step started now would have its
// window centred where the sine drift is at phase (0: its fastest, 0.5:
// its slowest); otherwise it returns at once.
func (g gateSpec) waitPhase(ctx context.Context, phase float64) error {
	if !g.opposite {
		return nil
	}
	p := g.drift.Period
	centre := time.Now().Add(g.warmup + g.d/2)
	into := time.Duration(centre.UnixNano() % int64(p))
	wait := (time.Duration(phase*float64(p)) - into + p) % p
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// why says, for a trial's line, what made a step fail or invalid besides
// a regression: an SLO, over capacity, a hazard.
func why(st *report.StepReport) string {
	var out []string
	for _, r := range st.SLO {
		if !r.Pass {
			out = append(out, fmt.Sprintf("slo %s.p%g", r.Metric, r.Percentile))
		}
	}
	if st.OverCapacity != nil {
		out = append(out, st.OverCapacity.Message)
	}
	for _, h := range st.Hazards {
		out = append(out, h.Kind+": "+h.Message)
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, "; ") + ")"
}

// ratios is each comparison's ratio and interval, for a trial's line.
func ratios(checks []report.BaselineCheck) string {
	var b strings.Builder
	for _, c := range checks {
		fmt.Fprintf(&b, "  %s.p%g ratio %.3f", c.Metric, c.Percentile, c.Ratio)
		if c.RatioCI95 != nil {
			fmt.Fprintf(&b, " [%.3f, %.3f]", c.RatioCI95[0], c.RatioCI95[1])
		}
	}
	return b.String()
}

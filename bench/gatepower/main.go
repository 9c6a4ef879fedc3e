// Command gatepower measures a gate's power and its refusals, counting every
// run: a run the gate refused (INVALID: a hazard could have changed its
// verdict) is a run in which it caught nothing.
//
// Power (the default mode) measures how often the README's pull-request
// gate calls a regression on an unchanged simulator (false alarms) and how
// often it catches one whose every engine step is F times slower
// (detection):
//
//	go run ./bench/gatepower -trials 10 [-factors 1.1,1.2] [-parallel 1] [-until-decided [-min-duration 10s]] [-trial-seed 1000]
//
// Each trial records a baseline on the unchanged simulator with a fresh
// seed (trial i: -trial-seed+i), then reruns the gate against it (the
// baseline in the plan, as --baseline gives it: a regression fails the
// step) with the same seed (a paired comparison: the same requests on the
// same schedule) on the unchanged simulator and on slower ones, and once
// with another seed on the unchanged one (unpaired: compared after the
// run, since a gate refuses a baseline of another seed); each recording
// runs its whole window, as llmslo records one. An alarm is a gate that
// exits 1: a regression or a failed SLO. Each row prints its runs, their
// pass/fail/invalid verdicts, its alarms, the alarm rate over all runs and
// the invalid rate, each with its Wilson 95% interval, then the seconds
// its runs measured (see -until-decided); the row "baseline recording"
// counts the baselines the gate refused to record (that trial's
// comparisons are then not run). It takes trials × (3 + len(factors))
// gate runs of 50 s each (40 s steps after a 10 s warm-up): about 25
// minutes for -trials 10 with two factors at -parallel 1, less with
// -until-decided. Run it on a
// quiet machine: a busy one makes the client late and the steps invalid,
// which now lowers the alarm rate.
//
// Refusals (-refusals SERVER) measure how often the PR gate fails or
// refuses to judge a healthy server: it runs the gate -trials times, each
// with a fresh seed, as a CI job would, and prints the runs, pass, fail
// (and of those, over capacity) and invalid counts, the rate of fail or
// invalid with its 95% interval and the hazards that made the invalid runs
// invalid:
//
//	go run ./bench/gatepower -refusals inproc -trials 40    # simulator in this process
//	go run ./bench/gatepower -refusals process -trials 40   # simulator in its own process (llmslo sim)
//	go run ./bench/gatepower -refusals neighbour -trials 40 # as process, beside a process spinning on a core
//	go run ./bench/gatepower -refusals knee -trials 40      # a server just past its knee: every run must fail
//	go run ./bench/gatepower -refusals starved -trials 10   # 10,000 req/s on one core shared with 4 busy loops
//	go run ./bench/gatepower -refusals starved2 -trials 10  # 20,000 req/s on two cores
//	go run ./bench/gatepower -refusals inproc -trials 40 -until-decided  # any mode, run until decided
//
// The first three run the PR gate at 6 req/s of azure-conv-2023 (Poisson)
// for 30 s steps after a 5 s warm-up against the h200-llama3-8b profile,
// with SLOs ttft.p90<=5s and itl.p99<=2s (and the default error-rate
// guard): 35 s a run, about 24 minutes for 40 trials one at a time
// (process and neighbour add a build of cmd/llmslo first). knee runs a
// server just past its knee: --max-num-seqs 2 (4.3 to 4.5 req/s of
// capacity, the completions a second of a saturated server), fixed:128:64
// at 5 req/s, 20 s steps after 2 s, ttft.p50<=2s; each run must fail as
// over capacity. The starved modes run 2 s steps without
// warm-up against the "instant" profile, about 3 s a run; for them every
// run is expected INVALID with client_saturation. -duration, -warmup,
// -rate and -slos override a mode's defaults; -parallel runs the
// in-process modes (inproc, knee) several at once, for a machine with
// cores to spare (each run then shares its process's CPU with the others).
//
// -until-decided runs every gate step, in both modes, until its verdict is
// decided (load.Plan.UntilDecided, docs/verdicts.md): -duration is then
// the cap and -min-duration the floor (0: load's default, 10 s). In the
// power mode the baselines are recorded so too; a paired comparison uses
// the seconds both runs measured, while the unpaired run, which has no
// baseline in its plan, is decided on its SLOs alone and then compared
// whole window with whole window. Every table row also shows what its runs
// cost: "mean s" and "p90 s" are the mean and the 90th percentile (nearest
// rank) of the seconds each run measured (its warm-up left out), "cap s"
// is the step's duration (-duration, or the mode's), and "decided early"
// counts the runs a look stopped before the cap. Without -until-decided
// every run measures the whole step.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/vllmsim"
)

// The flags are the package's, not main's, so that the package's test
// binary takes them too: `go test -run TestVirtual` runs the same modes in
// virtual time (virtual_test.go).
var (
	trials       = flag.Int("trials", 10, "trials (fresh seeds)")
	factors      = flag.String("factors", "1.1,1.2", "step-time factors of the slower servers")
	tolerance    = flag.Float64("tolerance", load.DefaultBaselineTolerance, "baseline tolerance")
	duration     = flag.Duration("duration", 40*time.Second, "measured length of the gate's step, the cap with -until-decided (refusals: 30s, knee 20s, 2s when starved)")
	warmup       = flag.Duration("warmup", 10*time.Second, "the gate's warm-up (refusals: 5s, knee 2s, 0 when starved)")
	rateFlag     = flag.Float64("rate", 6, "the gate's rate, req/s (refusals: 6; knee 5, starved 10000, starved2 20000)")
	slosFlag     = flag.String("slos", strings.Join(powerSLOs, ","), "the gate's SLOs, comma-separated (refusals: "+strings.Join(refusalSLOs, ",")+")")
	parallel     = flag.Int("parallel", 1, "how many gate runs go at once, across trials (each uses a fraction of a core; a starved run shows as invalid)")
	refusals     = flag.String("refusals", "", "measure only the PR gate's refusals against SERVER: "+strings.Join(refusalServers, ", ")+" (one run at a time unless -parallel, for the in-process modes)")
	firstSeed    = flag.Int64("first-seed", 2000, "the refusal runs' first seed (run i takes first-seed+i)")
	trialSeed    = flag.Int64("trial-seed", 1000, "the power mode's first seed: trial i records and compares with trial-seed+i (unpaired: +500 more)")
	untilDecided = flag.Bool("until-decided", false, "run each gate step until its verdict is decided, -duration being the cap (a baseline recording runs its whole window, as llmslo records one)")
	minDuration  = flag.Duration("min-duration", 0, "with -until-decided, the floor of a step (0: the default, "+load.DefaultMinDuration.String()+")")
)

func main() {
	flag.Parse()
	if err := runFlags(context.Background(), false); err != nil {
		fmt.Fprintln(os.Stderr, "gatepower:", err)
		os.Exit(1)
	}
}

// runFlags runs the mode the flags name. virtual runs every simulator on
// in-memory connections, for a caller inside a testing/synctest bubble:
// a trial of minutes then takes the CPU time it needs, and the client is
// never late (what the gate's own statistics give, without the machine's
// noise).
func runFlags(ctx context.Context, virtual bool) error {
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	g := gateSpec{rate: *rateFlag, d: *duration, warmup: *warmup, slos: splitList(*slosFlag), firstSeed: *firstSeed,
		trialSeed: *trialSeed, untilDecided: *untilDecided, minDuration: *minDuration, virtual: virtual}
	if err := driftSpec(&g); err != nil {
		return err
	}
	if *refusals != "" {
		return refusalRun(ctx, *refusals, *trials, *parallel, g, set)
	}
	var fs []float64
	for _, f := range strings.Split(*factors, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v <= 0 {
			return fmt.Errorf("bad factor %q", f)
		}
		fs = append(fs, v)
	}
	rows, err := run(ctx, *trials, fs, *tolerance, g, *parallel)
	if err != nil {
		return err
	}
	return printPower(rows, *trials, *tolerance, g)
}

// powerSLOs are the README's PR gate's SLOs, which the power mode gates on.
var powerSLOs = []string{"ttft.p95<=500ms", "itl.p99<=250ms", "error_rate<=1%"}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// run runs the trials, at most parallel gates at a time: a trial's
// comparison runs start once its baseline is recorded, and the next
// trials' baselines run beside them.
func run(ctx context.Context, trials int, factors []float64, tolerance float64, g gateSpec, parallel int) ([]*tally, error) {
	rows := []*tally{newTally("baseline recording"), newTally("unchanged, paired"), newTally("unchanged, unpaired")}
	rows[0].noAlarms = true
	for _, f := range factors {
		rows = append(rows, newTally(fmt.Sprintf("×%g step time, paired", f)))
	}
	if g.versus {
		rows = versusRows(factors)
	}
	slots := make(chan struct{}, max(parallel, 1))
	g.tolerance = tolerance
	// Every gate here has a baseline but the recording, which runs its
	// whole window as llmslo records one (load.Plan.ForRecording).
	gateIn := func(factor float64, seed int64, base *report.Report) (*report.Report, error) {
		slots <- struct{}{}
		defer func() { <-slots }()
		spec := g
		spec.untilDecided = spec.untilDecided && base != nil
		return spec.run(ctx, g.sim(vllmsim.Config{ProfileName: "h200-llama3-8b", StepTimeScale: factor}), seed, base)
	}
	var mu sync.Mutex // guards rows and the first error
	var firstErr error
	var wg sync.WaitGroup
	// As many trials at a time as gates may run (two at least): the next
	// trials' baselines run beside earlier ones' comparisons, and results
	// come in trial by trial (a run cut short still leaves its tallies in
	// the log).
	active := make(chan struct{}, max(2, parallel))
	for i := range trials {
		wg.Add(1)
		active <- struct{}{}
		go func() {
			defer func() { <-active; wg.Done() }()
			var err error
			if g.versus {
				err = versusTrial(ctx, i, factors, g, slots, rows, &mu)
			} else {
				err = trial(ctx, i, factors, g, gateIn, rows, &mu)
			}
			if err != nil {
				mu.Lock()
				firstErr = cmp.Or(firstErr, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return rows, firstErr
}

// printPower prints the power mode's table.
func printPower(rows []*tally, trials int, tolerance float64, g gateSpec) error {
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "server\truns\tpass\tfail\tinvalid\talarms\talarm rate\t95%% interval\tinvalid rate\t95%% interval\talarms by ttft / itl\tmean ttft ratio\t%s\tinvalid hazards\n", measuredHeader)
	for _, t := range rows {
		alarms, alarmRate, byMetric, mean := strconv.Itoa(t.alarms), rate(t.alarms, t.runs), fmt.Sprintf("%d / %d", t.byMetric["ttft"], t.byMetric["itl"]), "—"
		if t.noAlarms {
			alarms, alarmRate, byMetric = "—", "—\t—", "—"
		} else if t.ratioN > 0 {
			mean = fmt.Sprintf("%.2f", t.ratioSum/float64(t.ratioN))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.name, t.runs, t.pass, t.fail, t.invalid, alarms,
			alarmRate, rate(t.invalid, t.runs), byMetric, mean, t.measured(g.d.Seconds()), kinds(t.hazards))
	}
	if g.versus {
		fmt.Fprintf(tw, "\n%d trials, each side by side (%s) with an unchanged simulator (no baseline recorded)\n", trials, g.versusMode)
	} else {
		fmt.Fprintf(tw, "\n%d trials; %d baseline recordings refused (invalid): those trials' comparisons were not run\n", trials, rows[0].invalid)
	}
	if g.drift.Kind != "" || g.jitter > 0 {
		when := "comparisons run right after their baseline"
		switch {
		case g.versus:
			when = "both servers of a run under the same drift"
		case g.opposite:
			when = "each baseline recorded at the drift's fastest, its comparisons at its slowest"
		}
		fmt.Fprintf(tw, "drift %s, each server's own jitter %.0f%%; %s\n", g.drift, 100*g.jitter, when)
	}
	fmt.Fprintf(tw, "gate: azure-conv-2023 at %g req/s, %s, h200-llama3-8b, SLOs %s, tolerance %.0f%%%s\n",
		g.rate, g.steps(), strings.Join(g.slos, " "), 100*tolerance, g.clock())
	return tw.Flush()
}

// trial records a baseline with seed trialSeed+i, then reruns the gate against
// it: with the same seed on the unchanged simulator and on each slower
// one, and with another seed on the unchanged one.
func trial(ctx context.Context, i int, factors []float64, g gateSpec, gateIn func(float64, int64, *report.Report) (*report.Report, error),
	rows []*tally, mu *sync.Mutex) error {
	seed := g.trialSeed + int64(i)
	if err := g.waitPhase(ctx, 0); err != nil {
		return err
	}
	base, err := gateIn(1, seed, nil)
	if err != nil {
		return err
	}
	if err := g.waitPhase(ctx, 0.5); err != nil {
		return err
	}
	mu.Lock()
	rows[0].count(&base.Steps[0])
	mu.Unlock()
	if base.Steps[0].Verdict == report.VerdictInvalid {
		fmt.Fprintf(os.Stderr, "trial %d: the baseline recording was refused (invalid %+v): no comparison this trial\n", i, base.Steps[0].Hazards)
		return nil
	}
	type comparison struct {
		f    float64
		seed int64
	}
	runs := []comparison{{1, seed}, {1, seed + 500}}
	for _, f := range factors {
		runs = append(runs, comparison{f, seed})
	}
	reps := make([]*report.Report, len(runs))
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for k, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[k], errs[k] = gateIn(r.f, r.seed, base)
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for k := range runs {
		if errs[k] != nil {
			return errs[k]
		}
		t := rows[k+1]
		st := &reps[k].Steps[0]
		t.count(st)
		if st.Verdict == report.VerdictInvalid {
			fmt.Fprintf(os.Stderr, "trial %d, %s: invalid %+v\n", i, t.name, st.Hazards)
			continue
		}
		checks := st.Baseline
		alarm := t.alarm(st, checks)
		fmt.Fprintf(os.Stderr, "trial %d, %s: %s, alarm=%v", i, t.name, st.Verdict, alarm)
		if st.UntilDecided != nil {
			fmt.Fprintf(os.Stderr, ", %.1f s measured (decided=%v)", st.DurationS, st.UntilDecided.Decided)
		}
		fmt.Fprintln(os.Stderr, ratios(checks))
	}
	fmt.Fprintf(os.Stderr, "after trial %d:", i)
	for _, t := range rows {
		fmt.Fprintf(os.Stderr, "  %s %d/%d (%d invalid)", t.name, t.alarms, t.runs, t.invalid)
	}
	fmt.Fprintln(os.Stderr)
	return nil
}

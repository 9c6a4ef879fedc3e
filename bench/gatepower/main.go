// Command gatepower measures the power of a baseline gate: how often the
// README's pull-request gate calls a regression on an unchanged simulator
// (false alarms), and how often it catches one whose every engine step is
// F times slower (detection), each with its 95% interval.
//
//	go run ./bench/gatepower -trials 10
//
// Each trial records a baseline on the unchanged simulator with a fresh
// seed, then reruns the gate with the same seed (a paired comparison: the
// same requests on the same schedule) on the unchanged simulator and on
// slower ones, and once with another seed on the unchanged one (unpaired).
// It takes trials × (2 + len(factors)) gate runs of about 40 s each: run it
// on a quiet machine, since a busy one makes the client late and the steps
// invalid (counted apart).
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

	"github.com/llmslo/llmslo/report"
	"github.com/llmslo/llmslo/runner"
	"github.com/llmslo/llmslo/stats"
	"github.com/llmslo/llmslo/verdict"
	"github.com/llmslo/llmslo/vllmsim"
)

func main() {
	trials := flag.Int("trials", 10, "trials (fresh seeds)")
	factors := flag.String("factors", "1.1,1.2", "step-time factors of the slower servers")
	tolerance := flag.Float64("tolerance", runner.DefaultBaselineTolerance, "baseline tolerance")
	duration := flag.Duration("duration", 40*time.Second, "measured length of the gate's step")
	rate := flag.Float64("rate", 6, "the gate's rate, req/s")
	parallel := flag.Int("parallel", 1, "how many gate runs go at once, across trials (each uses a fraction of a core; a starved run shows as invalid, counted apart)")
	flag.Parse()
	var fs []float64
	for _, f := range strings.Split(*factors, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v <= 0 {
			fmt.Fprintf(os.Stderr, "gatepower: bad factor %q\n", f)
			os.Exit(2)
		}
		fs = append(fs, v)
	}
	gateRate = *rate
	if err := run(*trials, fs, *tolerance, *duration, *parallel); err != nil {
		fmt.Fprintln(os.Stderr, "gatepower:", err)
		os.Exit(1)
	}
}

// tally counts one comparison's outcomes over the trials.
type tally struct {
	name           string
	alarms, judged int
	invalid        int
	byMetric       map[string]int // alarms raised by each metric's check
	ratioSum       float64
}

// run runs the trials, at most parallel gates at a time: a trial's
// comparison runs start once its baseline is recorded, and the next
// trials' baselines run beside them.
func run(trials int, factors []float64, tolerance float64, d time.Duration, parallel int) error {
	ctx := context.Background()
	rows := []*tally{{name: "unchanged, paired"}, {name: "unchanged, unpaired"}}
	for _, f := range factors {
		rows = append(rows, &tally{name: fmt.Sprintf("×%g step time, paired", f)})
	}
	for _, t := range rows {
		t.byMetric = map[string]int{}
	}
	slots := make(chan struct{}, max(parallel, 1))
	gateIn := func(factor float64, seed int64) (*report.Report, error) {
		slots <- struct{}{}
		defer func() { <-slots }()
		return gate(ctx, factor, seed, d)
	}
	var mu sync.Mutex // guards rows and the first error
	var firstErr error
	var wg sync.WaitGroup
	// Two trials at a time: the next one's baseline runs beside this one's
	// comparisons, and results come in trial by trial (a run cut short
	// still leaves its tallies in the log).
	active := make(chan struct{}, 2)
	for i := range trials {
		wg.Add(1)
		active <- struct{}{}
		go func() {
			defer func() { <-active; wg.Done() }()
			if err := trial(i, factors, tolerance, gateIn, rows, &mu); err != nil {
				mu.Lock()
				firstErr = cmp.Or(firstErr, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "server\tjudged\tinvalid\talarms\talarm rate\t95%% interval\talarms by ttft / itl\tmean ttft.p95 ratio\n")
	for _, t := range rows {
		lo, hi := stats.WilsonInterval(int64(t.alarms), int64(t.judged), 0.95)
		mean := 0.0
		if t.judged > 0 {
			mean = t.ratioSum / float64(t.judged)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.0f%%\t[%.0f%%, %.0f%%]\t%d / %d\t%.2f\n", t.name, t.judged, t.invalid, t.alarms,
			100*float64(t.alarms)/float64(max(t.judged, 1)), 100*lo, 100*hi, t.byMetric["ttft"], t.byMetric["itl"], mean)
	}
	fmt.Fprintf(tw, "\ngate: azure-conv-2023 at %g req/s, %v steps (10 s warm-up), h200-llama3-8b, tolerance %.0f%%\n", gateRate, d, 100*tolerance)
	return tw.Flush()
}

// trial records a baseline with seed 1000+i, then reruns the gate against
// it: with the same seed on the unchanged simulator and on each slower
// one, and with another seed on the unchanged one.
func trial(i int, factors []float64, tolerance float64, gateIn func(float64, int64) (*report.Report, error),
	rows []*tally, mu *sync.Mutex) error {
	seed := int64(1000 + i)
	base, err := gateIn(1, seed)
	if err != nil {
		return err
	}
	if base.Verdict == report.VerdictInvalid {
		fmt.Fprintf(os.Stderr, "trial %d: the baseline run was invalid (%+v); skipped\n", i, base.Steps[0].Hazards)
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
			reps[k], errs[k] = gateIn(r.f, r.seed)
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for k, r := range runs {
		if errs[k] != nil {
			return errs[k]
		}
		t := rows[k]
		st := &reps[k].Steps[0]
		if st.Verdict == report.VerdictInvalid {
			t.invalid++
			fmt.Fprintf(os.Stderr, "trial %d, %s: invalid %+v\n", i, t.name, st.Hazards)
			continue
		}
		checks, err := verdict.CompareBaseline(base, st, r.seed, tolerance)
		if err != nil {
			return err
		}
		t.judged++
		alarm := false
		for _, c := range checks {
			alarm = alarm || c.Regressed
			if c.Regressed {
				t.byMetric[c.Metric]++
			}
			if c.Metric == "ttft" {
				t.ratioSum += c.Ratio
			}
		}
		if alarm {
			t.alarms++
		}
		fmt.Fprintf(os.Stderr, "trial %d, %s: alarm=%v", i, t.name, alarm)
		for _, c := range checks {
			fmt.Fprintf(os.Stderr, "  %s.p%g ratio %.3f", c.Metric, c.Percentile, c.Ratio)
			if c.RatioCI95 != nil {
				fmt.Fprintf(os.Stderr, " [%.3f, %.3f]", c.RatioCI95[0], c.RatioCI95[1])
			}
		}
		fmt.Fprintln(os.Stderr)
	}
	fmt.Fprintf(os.Stderr, "after trial %d:", i)
	for _, t := range rows {
		fmt.Fprintf(os.Stderr, "  %s %d/%d (%d invalid)", t.name, t.alarms, t.judged, t.invalid)
	}
	fmt.Fprintln(os.Stderr)
	return nil
}

// gateRate is the gate's rate (-rate).
var gateRate = 6.0

// gate runs the README's PR gate once: one step at gateRate.
func gate(ctx context.Context, factor float64, seed int64, d time.Duration) (*report.Report, error) {
	cfg := runner.DefaultConfig()
	cfg.Target.Sim = vllmsim.Config{ProfileName: "h200-llama3-8b", StepTimeScale: factor}
	cfg.Fixture, cfg.Rates, cfg.Seed = "azure-conv-2023", []float64{gateRate}, seed
	cfg.Duration, cfg.Warmup = d, 10*time.Second
	cfg.SLOs = []string{"ttft.p95<=500ms", "itl.p99<=250ms", "error_rate<=1%"}
	return runner.Measure(ctx, cfg)
}

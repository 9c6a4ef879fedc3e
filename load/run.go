package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sync"
	"time"
)

// Plan is a whole run: one step per rate, each with an unmeasured warm-up.
type Plan struct {
	Target   TargetInfo
	Doer     Doer
	Workload Workload
	// Fixture describes the workload in the report (any JSON-ready value).
	Fixture any
	// ExpectedPrefixHitRate is the fixture's own prefix sharing, against
	// which the warm_cache hazard judges the server's hit rate.
	ExpectedPrefixHitRate float64
	// Trace holds the fixture's arrival offsets, for trace arrivals.
	Trace []time.Duration

	Rates    []float64
	Arrival  Arrival
	Duration time.Duration // measured part of each step
	Warmup   time.Duration // unmeasured traffic before each step, at the step's rate
	Seed     int64

	SLOs   []SLO
	Strict bool

	MaxInFlight  int
	DrainTimeout time.Duration // zero: 30s

	// BaseURL and HTTPClient reach the server's /metrics and
	// /reset_prefix_cache. An empty BaseURL disables both.
	BaseURL    string
	HTTPClient *http.Client
	// ResetPrefixCache asks the server to drop its prefix cache before
	// each step (reported either way).
	ResetPrefixCache bool
	// ScrapeEvery is the /metrics interval; zero means 1s, negative disables.
	ScrapeEvery time.Duration

	Thresholds Thresholds

	// Progress, when set, gets a line per second while a step runs.
	Progress io.Writer
	// OnStep is called after each step with its report.
	OnStep func(StepReport)
}

// StepName is the name of the step at a rate, as a subtest would be called.
func StepName(a Arrival, rate float64) string {
	if a.Kind == ArrivalTrace && a.Speed > 0 {
		return fmt.Sprintf("trace=%gx", a.Speed)
	}
	return fmt.Sprintf("rate=%g", rate)
}

// Steps lists the rates a plan runs: its Rates, or one step for a trace
// replayed at its own pace.
func (p *Plan) Steps() []float64 {
	if p.Arrival.Kind == ArrivalTrace && p.Arrival.Speed > 0 {
		return []float64{0}
	}
	return p.Rates
}

func (p *Plan) validate() error {
	switch {
	case p.Doer == nil:
		return errors.New("load: plan has no Doer")
	case p.Workload == nil:
		return errors.New("load: plan has no Workload")
	case p.Duration <= 0:
		return errors.New("load: step duration must be positive")
	case p.Warmup < 0:
		return errors.New("load: warm-up must not be negative")
	case len(p.Steps()) == 0:
		return errors.New("load: plan has no rates")
	}
	for _, r := range p.Steps() {
		if r < 0 || math.IsNaN(r) || math.IsInf(r, 0) || (r == 0 && p.Arrival.Kind != ArrivalTrace) {
			return fmt.Errorf("load: bad rate %g", r)
		}
	}
	return nil
}

// NewReport starts a report for the plan; Run fills its steps.
func (p *Plan) NewReport() *Report {
	r := &Report{Version: ReportVersion, StartedAt: time.Now().UTC(), Target: p.Target, Fixture: p.Fixture, Seed: p.Seed}
	for _, s := range p.SLOs {
		r.SLO = append(r.SLO, specOf(s))
	}
	return r
}

// Run runs every step in turn. When ctx ends it returns the report so far,
// marked partial, with ctx's error: nothing measured is lost.
func Run(ctx context.Context, p Plan) (*Report, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	rep := p.NewReport()
	next := 0
	for _, rate := range p.Steps() {
		st, used, err := RunStep(ctx, p, rate, next)
		next += used
		if st != nil {
			rep.Steps = append(rep.Steps, *st)
			rep.Verdict = Worse(rep.Verdict, st.Verdict)
			if p.OnStep != nil {
				p.OnStep(*st)
			}
		}
		if err != nil {
			rep.Partial = true
			rep.Reason = err.Error()
			return rep, err
		}
	}
	return rep, nil
}

// RunStep runs one step at rate: warm-up and measured window as one
// schedule, so the server is loaded when measurement starts. Requests take
// workload indices from firstIndex; it returns how many it used. A step cut
// short by ctx comes back marked partial together with ctx's error.
func RunStep(ctx context.Context, p Plan, rate float64, firstIndex int) (*StepReport, int, error) {
	if err := p.validate(); err != nil {
		return nil, 0, err
	}
	total := p.Warmup + p.Duration
	sched, err := p.Arrival.Schedule(rate, total, p.Seed+int64(firstIndex), p.Trace)
	if err != nil {
		return nil, 0, err
	}
	hc := p.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	reset := false
	if p.BaseURL != "" && p.ResetPrefixCache {
		reset, _ = ResetPrefixCache(ctx, hc, p.BaseURL)
	}

	start := time.Now().Add(20 * time.Millisecond) // time to start the dispatcher's helpers
	measureFrom := start.Add(p.Warmup)
	rec := NewRecorder(measureFrom, p.Duration, perRequestLimits(p.SLOs), LengthCheck{Tolerance: p.Thresholds.LengthTolerance})
	var scraper *Scraper
	if p.BaseURL != "" && p.ScrapeEvery >= 0 {
		scraper = StartScraper(ctx, hc, p.BaseURL, p.ScrapeEvery, measureFrom, measureFrom.Add(p.Duration))
	}
	name := StepName(p.Arrival, rate)
	stopProgress := startProgress(p.Progress, name, rec, measureFrom)
	mon := StartMonitor()
	d := Dispatch{Schedule: sched, Start: start, Workload: p.Workload, FirstIndex: firstIndex, Doer: p.Doer,
		MaxInFlight: p.MaxInFlight, DrainTimeout: p.DrainTimeout, Recorder: rec}
	res, runErr := d.Run(ctx)
	client := mon.Stop()
	stopProgress()

	rs, ev := rec.stepReport()
	st := &rs
	st.Name, st.RateTarget, st.Arrival = name, rate, p.Arrival.String()
	st.DurationS, st.WarmupS = p.Duration.Seconds(), p.Warmup.Seconds()
	st.Client = client
	if scraper != nil {
		st.Server = scraper.Stop(context.WithoutCancel(ctx))
	}
	st.Server.PrefixCacheReset = reset
	st.Requests.Scheduled = countFrom(sched, p.Warmup)
	st.Partial = runErr != nil || res.Canceled
	if st.Partial && runErr == nil {
		runErr = context.Cause(ctx)
	}
	// A step cut short is judged on what it measured: goodput over the
	// requests whose time had come and that the cut did not cancel,
	// throughput over the time it ran.
	window, due := p.Duration, st.Requests.Scheduled
	if st.Partial {
		window = min(window, max(res.End.Sub(measureFrom), 0))
		due = st.Requests.Sent - st.Requests.Canceled + st.Requests.Dropped
	}
	st.finish(due, window, &p, &ev)
	return st, len(sched), runErr
}

// countFrom counts the offsets at or after from: the measured requests.
func countFrom(sched []time.Duration, from time.Duration) int {
	n := 0
	for _, o := range sched {
		if o >= from {
			n++
		}
	}
	return n
}

// startProgress writes a line per second until the returned stop is called.
func startProgress(w io.Writer, name string, rec *Recorder, measureFrom time.Time) func() {
	if w == nil {
		return func() {}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				el := now.Sub(measureFrom)
				phase := "measure"
				if el < 0 {
					phase, el = "warm-up", -el
				}
				pr := rec.Progress()
				fmt.Fprintf(w, "%s %s %3.0fs  sent %d  in flight %d  done %d  failed %d  ttft p95 %.1f ms\n",
					name, phase, el.Seconds(), pr.Sent, pr.InFlight, pr.Completed, pr.Failed, ms(pr.TTFTP95))
			}
		}
	}()
	return func() { close(stop); wg.Wait() }
}

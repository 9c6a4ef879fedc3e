package load

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/vllmapi"
)

// runStep runs one step at rate: warm-up and measured window as one
// schedule, so the server is loaded when measurement starts. Requests take
// workload indices from firstIndex; it returns how many it used. A step cut
// short by ctx comes back marked partial together with ctx's error.
func runStep(ctx context.Context, p stepPlan, rate float64, firstIndex int) (*report.StepReport, int, error) {
	if p.Sessions != nil {
		return runSessionStep(ctx, p, rate, firstIndex)
	}
	sched, err := p.schedule(rate, p.Seed+int64(firstIndex))
	if err != nil {
		return nil, 0, err
	}
	used := len(sched) // a shard's share leaves the rest to the other shards
	sched, work, first := p.shardSchedule(sched, firstIndex)
	f, err := p.openStep(ctx, rate, 20*time.Millisecond) // time to start the dispatcher's helpers
	if err != nil {
		return nil, 0, err
	}
	dec := f.newDecider(countFrom(sched, p.Warmup))
	d := dispatch.OpenLoop{Schedule: sched, Start: f.start, Workload: work, FirstIndex: first,
		Sink: dec.sink(p.recorder(f.rec, f.name, f.start, f.measureFrom)), Cancel: p.Cancel, Sender: p.Send, Stop: dec.stopCh()}
	dec.start(ctx)
	res, runErr := d.Run(ctx)
	f.decision, f.decidedOn = dec.finish(), dec.decidedOn()
	if res.Stopped {
		f.cut(res.StoppedAt)
	}
	st, runErr := f.close(ctx, res.Canceled, runErr, func(st *report.StepReport, _ *observe.Evidence) {
		st.Evidence = f.rec.ReportEvidence()
		st.Requests.Scheduled = countFrom(sched, p.Warmup)
		if res.Stopped {
			st.Requests.Scheduled = countBetween(sched, p.Warmup, res.StoppedAt.Sub(f.start))
		}
	})
	return st, used, runErr
}

// stepFrame is what every step runs inside, whatever sends its requests
// (the open-loop dispatcher, or session replay): the prefix-cache reset,
// the recorder, the /metrics scraper, progress lines and the client
// monitor; and on the way out, the step report's common fields, goodput
// and the verdict.
type stepFrame struct {
	p                  *stepPlan
	name               string
	rate               float64
	start, measureFrom time.Time
	rec                *observe.Recorder
	reset              vllmapi.ResetStatus
	scraper            *vllmapi.Scraper
	stopProgress       func()
	mon                *observe.Monitor
	// decision is how a step run until decided ended (nil otherwise), and
	// decidedOn the baseline comparison it stopped on (decider.decidedOn).
	decision  *report.UntilDecided
	decidedOn []report.BaselineCheck
}

// cut ends the measured window at end: a step stopped once decided is
// judged as a step of that length.
func (f *stepFrame) cut(end time.Time) {
	f.rec.Cut(end)
	if f.scraper != nil {
		f.scraper.Cut(end)
	}
}

// openStep starts a step's frame; lead is the time before the first send
// when the plan sets no start time.
func (p *stepPlan) openStep(ctx context.Context, rate float64, lead time.Duration) (*stepFrame, error) {
	hc := p.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	start, err := p.stepStart(ctx)
	if err != nil {
		return nil, err
	}
	f := &stepFrame{p: p, rate: rate, name: stepName(p.Arrival, rate)}
	if p.BaseURL != "" && p.ResetPrefixCache {
		f.reset, _ = vllmapi.ResetPrefixCache(ctx, hc, p.BaseURL, vllmapi.ResetOptions{ResetRunning: p.ResetRunningRequests})
	}
	if start.IsZero() {
		start = time.Now().Add(lead)
	}
	f.start, f.measureFrom = start, start.Add(p.Warmup)
	f.rec = observe.NewRecorder(f.measureFrom, p.Duration, verdict.GoodputLimits(p.SLOs),
		p.Features.lengthCheck(p.Thresholds.Resolved().LengthTolerance, p.LengthsAdvisory))
	if p.BaseURL != "" {
		f.scraper = vllmapi.StartScraper(ctx, hc, p.BaseURL, time.Second, f.measureFrom, f.measureFrom.Add(p.Duration))
	}
	f.stopProgress = f.startProgress()
	f.mon = observe.StartMonitor()
	return f, nil
}

// close ends the frame once the requests are done: fill sets what only the
// sender knows (the scheduled count, its own evidence); a step cut short is
// marked partial and judged on what it measured.
func (f *stepFrame) close(ctx context.Context, canceled bool, runErr error, fill func(*report.StepReport, *observe.Evidence)) (*report.StepReport, error) {
	p := f.p
	p.flushRecords()
	client := f.mon.Stop()
	f.stopProgress()
	rs, ev := f.rec.Summary()
	st := &rs
	st.Name, st.RateTarget, st.Arrival = f.name, f.rate, p.Arrival.String()
	st.DurationS, st.WarmupS = f.rec.Window().Seconds(), p.Warmup.Seconds()
	st.StartedAt = f.measureFrom.UTC()
	st.Client = client
	if f.scraper != nil {
		st.Server = f.scraper.Stop(context.WithoutCancel(ctx))
	}
	st.Server.PrefixCacheReset, st.Server.PrefixCacheResetStatus = f.reset == vllmapi.ResetDone, f.reset
	st.Server.MaxNumSeqs = p.MaxNumSeqs
	fill(st, &ev)
	st.Partial = runErr != nil || canceled
	if st.Partial && runErr == nil {
		runErr = context.Cause(ctx)
	}
	// Goodput over the requests whose time had come and that a cut did
	// not cancel.
	st.SetGoodput(st.Due())
	c := p.judge
	if st.UntilDecided = f.decision; st.UntilDecided != nil {
		// A step decided on a comparison keeps it: comparing its cut
		// window again would be one look more. Otherwise this is the last
		// baseline look.
		c.Sequential = &verdict.Sequential{CapS: p.Duration.Seconds(), PlannedRequests: st.Requests.Scheduled, Settled: f.decidedOn}
		if f.decidedOn == nil {
			c.Sequential.BaselineLevel = st.UntilDecided.BaselineConfidence
		}
	}
	j := verdict.Judge(st, ev, c)
	j.Apply(st)
	if p.overload != nil {
		// An overload step is judged by the overload gate instead of the
		// error guard that counts shed requests against the server.
		p.overload.Judge(st) // keeps a step that met every SLO for the next one's advice
	}
	if runErr == nil {
		runErr = j.BaselineErr // the step stays in the report, marked partial by the caller
	}
	if p.paired != nil && !p.pairedBase {
		st.Versus = f.decidedOn // what verdict.JudgeVersus keeps
	}
	return st, runErr
}

// judging is what the plan's steps are judged against.
func (p *stepPlan) judging() verdict.Criteria {
	c := verdict.Criteria{SLOs: p.SLOs, Strict: p.Strict, ExpectedPrefixHitRate: p.ExpectedPrefixHitRate, Thresholds: p.Thresholds}
	if p.FixtureInfo != nil {
		c.MeanOutputTokens = p.FixtureInfo.OutputTokens.Mean
	}
	c.InProcessServer = p.TargetInfo.Kind == KindSim
	c.MaxNumSeqs = p.MaxNumSeqs
	c.Baseline, c.BaselineTolerance, c.BaselinePaired = p.Baseline, p.BaselineTolerance, p.baselinePaired
	c.LengthsAdvisory = p.LengthsAdvisory
	return c
}

// countFrom counts the offsets at or after from: the measured requests.
// countBetween counts the offsets in [from, until).
func countBetween(sched []time.Duration, from, until time.Duration) int {
	n := 0
	for _, o := range sched {
		if o >= from && o < until {
			n++
		}
	}
	return n
}

func countFrom(sched []time.Duration, from time.Duration) int {
	return countBetween(sched, from, math.MaxInt64)
}

// schedule is the step's whole schedule, warm-up first.
func (p *stepPlan) schedule(rate float64, seed int64) ([]time.Duration, error) {
	if p.Process != nil {
		return customSchedule(p.Process, rate, p.Warmup+p.Duration, seed)
	}
	return p.Arrival.StepSchedule(rate, p.Warmup, p.Duration, seed, p.Trace)
}

// customSchedule is a Plan.Process's schedule for a window of length d,
// refused unless it keeps the contract of arrival.Process: ascending
// offsets, each in [0, d).
func customSchedule(proc arrival.Process, rate float64, d time.Duration, seed int64) ([]time.Duration, error) {
	sched, err := proc.Offsets(rate, d, seed)
	if err != nil {
		return nil, fmt.Errorf("arrival process (Plan.Process): %w", err)
	}
	for i, o := range sched {
		if o < 0 || o >= d || (i > 0 && o < sched[i-1]) {
			return nil, fmt.Errorf("arrival process (Plan.Process): offset %d is %v; want ascending offsets in [0, %v)", i, o, d)
		}
	}
	return sched, nil
}

package runner

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/llmslo/llmslo/dispatch"
	"github.com/llmslo/llmslo/observe"
	"github.com/llmslo/llmslo/report"
	"github.com/llmslo/llmslo/verdict"
	"github.com/llmslo/llmslo/vllmapi"
)

// RunStep runs one step at rate: warm-up and measured window as one
// schedule, so the server is loaded when measurement starts. Requests take
// workload indices from firstIndex; it returns how many it used. A step cut
// short by ctx comes back marked partial together with ctx's error.
func RunStep(ctx context.Context, p Plan, rate float64, firstIndex int) (*report.StepReport, int, error) {
	if err := p.validate(); err != nil {
		return nil, 0, err
	}
	if p.Sessions != nil {
		return runSessionStep(ctx, p, rate, firstIndex)
	}
	sched, err := p.schedule(rate, p.Seed+int64(firstIndex))
	if err != nil {
		return nil, 0, err
	}
	used := len(sched) // a shard's share leaves the rest to the other shards
	sched, work, first := p.shardSchedule(sched, firstIndex)
	hc := p.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	start, err := p.stepStart(ctx)
	if err != nil {
		return nil, 0, err
	}
	reset := false
	if p.BaseURL != "" && p.ResetPrefixCache {
		reset, _ = vllmapi.ResetPrefixCache(ctx, hc, p.BaseURL)
	}
	if start.IsZero() {
		start = time.Now().Add(20 * time.Millisecond) // time to start the dispatcher's helpers
	}
	measureFrom := start.Add(p.Warmup)
	rec := observe.NewRecorder(measureFrom, p.Duration, verdict.GoodputLimits(p.SLOs), observe.LengthCheck{Tolerance: p.Thresholds.Resolved().LengthTolerance})
	var scraper *vllmapi.Scraper
	if p.BaseURL != "" && p.ScrapeEvery >= 0 {
		scraper = vllmapi.StartScraper(ctx, hc, p.BaseURL, p.ScrapeEvery, measureFrom, measureFrom.Add(p.Duration))
	}
	name := StepName(p.Arrival, rate)
	stopProgress := startProgress(p.Progress, name, rec, measureFrom)
	mon := observe.StartMonitor()
	d := dispatch.Dispatch{Schedule: sched, Start: start, Workload: work, FirstIndex: first, Doer: p.Doer,
		MaxInFlight: p.MaxInFlight, DrainTimeout: p.drainTimeout(), Recorder: p.recorder(rec, name, start, measureFrom),
		Cancel: p.Cancel}
	res, runErr := d.Run(ctx)
	p.flushRecords()
	client := mon.Stop()
	stopProgress()

	rs, ev := rec.Step()
	st := &rs
	st.Evidence = rec.ReportEvidence()
	st.Name, st.RateTarget, st.Arrival = name, rate, p.Arrival.String()
	st.DurationS, st.WarmupS = p.Duration.Seconds(), p.Warmup.Seconds()
	st.StartedAt = measureFrom.UTC()
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
	// requests whose time had come and that the cut did not cancel.
	due := st.Requests.Scheduled
	if st.Partial {
		due = st.Requests.Sent - st.Requests.Canceled + st.Requests.Dropped
	}
	finishStep(st, due)
	verdict.Judge(st, ev, p.judging())
	return st, used, runErr
}

// finishStep fills goodput: good requests over those that were due,
// less those abandoned on purpose (a user who pressed stop was not failed
// by the server, and a cancel rate must not cap goodput).
func finishStep(s *report.StepReport, due int) {
	due -= s.Requests.Abandoned
	if due > 0 {
		s.Goodput = float64(s.Requests.Good) / float64(due)
	}
}

// judging is what the plan's steps are judged against.
func (p *Plan) judging() verdict.Config {
	c := verdict.Config{SLOs: p.SLOs, Strict: p.Strict, ExpectedPrefixHitRate: p.ExpectedPrefixHitRate, Thresholds: p.Thresholds}
	if p.Fixture != nil {
		c.MeanOutputTokens = p.Fixture.OutputTokens.Mean
	}
	c.InProcessServer = p.Target.Kind == TargetSim
	c.MaxNumSeqs = p.MaxNumSeqs
	return c
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
func startProgress(w io.Writer, name string, rec *observe.Recorder, measureFrom time.Time) func() {
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
					name, phase, el.Seconds(), pr.Sent, pr.InFlight, pr.Completed, pr.Failed, float64(pr.TTFTP95)/float64(time.Millisecond))
			}
		}
	}()
	return func() { close(stop); wg.Wait() }
}

// drainTimeout bounds the wait for a step's last requests: the plan's, or
// the larger of the dispatcher's default and the step's own length.
func (p *Plan) drainTimeout() time.Duration { return drainBound(p.DrainTimeout, p.Duration) }

// schedule is the step's whole schedule, warm-up first.
func (p *Plan) schedule(rate float64, seed int64) ([]time.Duration, error) {
	if p.Process != nil {
		return p.Process.Offsets(rate, p.Warmup+p.Duration, seed)
	}
	return p.Arrival.StepSchedule(rate, p.Warmup, p.Duration, seed, p.Trace)
}

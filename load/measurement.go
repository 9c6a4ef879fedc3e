package load

import (
	"context"
	"fmt"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/vllmapi"
	"github.com/llmslo/llmslo/load/workload"
)

// Measurement is an open measurement: a plan run a step at a time into one
// report, against a target started once. It is the one run loop: Measure
// and tune.Sweep run their steps through Step, and slotest.Run runs each
// step as a subtest.
type Measurement struct {
	plan   stepPlan // the Plan, settled, that each step's plan starts from
	report *report.Report
	next   int // the workload index the next step starts at

	// Set by Open; zero for a measurement of a plan built by hand (tests).
	endpoint  *Endpoint
	client    *client.Client
	rows      int                 // fixture rows, for trace replays
	generator *workload.Generator // for chat prompts made exact before a step
	sessions  *workload.Sessions  // set when the fixture's sessions are replayed

	startOffset time.Duration // from Plan.StartAt to the next step's start
	// versus is the base side of a side-by-side plan (Plan.Versus), run
	// step by step beside this one.
	versus *Measurement
	// openEnded says the run's step count is not known ahead (a sweep),
	// for progress.
	openEnded bool
}

// Open starts (or reaches) the plan's target and prepares the workload.
// Close releases them.
func Open(ctx context.Context, plan Plan) (*Measurement, error) {
	if err := plan.validate(); err != nil {
		return nil, err
	}
	if err := plan.checkBaseline(); err != nil {
		return nil, err // before the target starts: nothing was sent
	}
	plan.Arrival = plan.arrival() // a Process is no trace, and the report names it
	var base Plan
	if plan.Versus != nil {
		plan, base = plan.versusSides()
	}
	ep, err := plan.Target.Start(ctx)
	if err != nil {
		return nil, err
	}
	s := &Measurement{plan: stepPlan{Plan: plan}, endpoint: ep}
	if err := s.prepare(ctx, plan.Fixture); err != nil {
		s.Close()
		return nil, err
	}
	if base.Target != nil {
		if err := s.openVersus(ctx, base, plan.versusTolerance()); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

func (m *Measurement) prepare(ctx context.Context, fx *fixtures.Fixture) error {
	cfg := m.plan.Plan
	if m.endpoint.Model == "" || (cfg.MaxModelLen == 0 && m.endpoint.MaxModelLen == 0) {
		if err := m.endpoint.checkHealth(ctx); err != nil {
			return err
		}
	}
	if err := checkBaselineModel(cfg.Baseline, m.endpoint.Model); err != nil {
		return err // known now, before any probe or step sends a request
	}
	hc := m.endpoint.httpClient()
	maxLen := cfg.MaxModelLen
	if maxLen == 0 {
		maxLen = m.endpoint.MaxModelLen
	}
	if maxLen > 0 {
		fx = fx.Clip(maxLen)
	}
	m.rows = fx.Len()
	c, err := m.endpoint.client(cfg.API, cfg.MaxInFlight, cfg.StallTimeout, cfg.RequestTimeout)
	if err != nil {
		return err
	}
	m.client = c
	wopts := workload.Options{Seed: cfg.Seed, DisableSalt: !cfg.Salt, API: cfg.API, InOrder: cfg.Arrival.Kind == arrival.Trace}
	wopts.Salt = cfg.sharedSalt() // shards salt request k alike
	if cfg.API == workload.APIChat {
		wopts.Tokenizer = vllmapi.NewHTTPTokenizer(m.endpoint.URL, m.endpoint.Model, hc)
	}
	features, err := probeFeatures(ctx, m.endpoint, hc, cfg.API)
	if err != nil {
		return err
	}
	if err := features.checkLengths(cfg.LengthsAdvisory); err != nil {
		return err
	}
	features.workloadOptions(&wopts)
	g, err := workload.New(fx, wopts)
	if err != nil {
		return fmt.Errorf("workload: %w", err)
	}
	m.generator = g
	info := fx.Info()
	m.plan = stepPlan{
		Plan:                  cfg,
		TargetInfo:            m.endpoint.Info(),
		Send:                  dispatch.Sender{Doer: c, Wait: m.endpoint.sendWait()},
		Workload:              g,
		FixtureInfo:           &info,
		ExpectedPrefixHitRate: info.ExpectedPrefixHitRate,
		Trace:                 fx.ArrivalOffsets(),
		Cancel:                cfg.cancelPlan(),
		BaseURL:               m.endpoint.URL,
		HTTPClient:            hc,
		MaxNumSeqs:            m.endpoint.MaxNumSeqs,
		Features:              features,
		// Open checked every setting a pairing needs (checkBaseline).
		baselinePaired: cfg.Baseline != nil,
	}
	m.plan.TargetInfo.Notes = features.notes(cfg.LengthsAdvisory)
	if err := m.openRecords(); err != nil {
		return err
	}
	if fx.Sessions != nil {
		m.useSessions(g, fx)
	}
	if err := m.plan.settle(); err != nil {
		return err
	}
	m.report = m.plan.newReport()
	m.report.Shard = cfg.shardInfo()
	m.report.Fit = fit(ctx, m.endpoint, hc, fx, maxLen, cfg.FitMargin)
	tellFit(cfg.Progress, m.report.Fit)
	return nil
}

// StepName is the name of the step at rate, as a subtest would be called.
func (m *Measurement) StepName(rate float64) string { return stepName(m.plan.Arrival, rate) }

// Rates lists the rates the measurement's steps run at.
func (m *Measurement) Rates() []float64 { return m.plan.runRates() }

// OpenEnded says the run's step count is not known ahead: a search picks
// each rate from the last step's verdict (package load/tune), so progress
// shows no total. Call it before the first step.
func (s *Measurement) OpenEnded() { s.openEnded = true }

// Report is the report so far.
func (m *Measurement) Report() *report.Report { return m.report }

// steps runs every step in turn. When ctx ends it returns the report so
// far, marked partial, with ctx's error: nothing measured is lost.
func (m *Measurement) steps(ctx context.Context) (*report.Report, error) {
	for _, rate := range m.Rates() {
		if _, err := m.Step(ctx, rate); err != nil {
			return m.report, err
		}
	}
	return m.report, nil
}

// Step runs one step at rate, for the plan's duration after its warm-up.
// Its report is added to the measurement's report, also when ctx cut it
// short (then marked partial and returned with ctx's error).
func (m *Measurement) Step(ctx context.Context, rate float64) (*report.StepReport, error) {
	if m.versus != nil {
		return m.versusStep(ctx, rate)
	}
	p, err := m.nextStepPlan(rate)
	if err != nil {
		return nil, err
	}
	if err := m.preparePrompts(ctx, rate, p); err != nil {
		return nil, fmt.Errorf("prepare prompts: %w", err)
	}
	st, err := m.measureStep(ctx, rate, p)
	m.addStep(st, err)
	return st, err
}

// nextStepPlan is the plan of the next step, at rate: where its
// schedule starts, its place in the run, and whether a baseline pairs it.
func (m *Measurement) nextStepPlan(rate float64) (stepPlan, error) {
	p := m.plan
	if p.Arrival.Kind == arrival.Trace && m.rows > 0 && m.next%m.rows != 0 {
		// A trace replay sends row k of the fixture at the trace's arrival
		// k: every step starts its schedule at the trace's beginning, so
		// it starts at a row-0 index too (prompts stay unique: their
		// content comes from the index, not the row).
		m.next += m.rows - m.next%m.rows
	}
	if err := m.nextStepStart(&p); err != nil {
		return p, err
	}
	p.judge.BaselinePaired = p.baselinePaired && m.followsBaseline(rate)
	p.StepIndex = len(m.report.Steps) + 1
	if !m.openEnded {
		p.StepCount = max(len(m.Rates()), p.StepIndex)
	}
	return p, nil
}

// promptsAhead is how many requests a step at rate may send, warm-up
// included, with room for a Poisson draw above its mean (20%) and for a
// retried step's first sends: the prompts to make before it starts.
func promptsAhead(rate float64, p stepPlan, extra int) int {
	return int(rate*(p.Warmup+p.Duration).Seconds()*1.2) + extra
}

// preparePrompts makes the step's prompts exact before it starts, not on
// its send path: sessions' turns, and chat prompts through the server's
// /tokenize.
func (m *Measurement) preparePrompts(ctx context.Context, rate float64, p stepPlan) error {
	if err := m.prepareSessions(ctx, rate, p); err != nil {
		return err
	}
	if m.sessions == nil && m.generator != nil && m.plan.API == workload.APIChat {
		return m.prepareAhead(ctx, promptsAhead(rate, p, 64))
	}
	return nil
}

// measureStep runs the step, and again while its only hazard is a starved
// client and retries are left (never on a shared clock), keeping the last
// attempt with the others listed.
func (m *Measurement) measureStep(ctx context.Context, rate float64, p stepPlan) (*report.StepReport, error) {
	st, used, err := runStep(ctx, p, rate, m.next)
	m.next += used
	var retried []string
	for m.plan.StarvedRetries > len(retried) && err == nil && onlyStarved(st) && p.StepStart.IsZero() {
		retried = append(retried, st.Hazards[0].Kind+": "+st.Hazards[0].Message)
		st, used, err = runStep(ctx, p, rate, m.next)
		m.next += used
	}
	if st != nil {
		st.Retried = retried
	}
	return st, err
}

// addStep adds a measured step to the report and tells the watchers; a
// run cut short is marked partial with the reason.
func (m *Measurement) addStep(st *report.StepReport, err error) {
	if st != nil {
		m.report.Steps = append(m.report.Steps, *st)
		m.report.Verdict = report.Worse(m.report.Verdict, st.Verdict)
		if m.plan.Progress != nil {
			m.plan.Progress.StepEnded(st)
		}
	}
	if err != nil {
		m.report.Partial = true
		m.report.Reason = err.Error()
	}
}

// ClosedLoop measures the same workload the way a concurrency-limited
// benchmark does, with clients that each wait for their previous answer, for
// the plan's duration, and judges the same SLOs. It exists to show the
// coordinated-omission trap beside an open-loop step; its report is not
// added to the measurement's report.
func (m *Measurement) ClosedLoop(ctx context.Context, clients int) (*report.StepReport, error) {
	st, used, err := runClosedLoop(ctx, m.plan, clients, m.next)
	m.next += used
	return st, err
}

// Close releases the client and whatever the target started.
func (m *Measurement) Close() error {
	if m.versus != nil {
		_ = m.versus.Close()
	}
	_ = m.CloseRecords() // its error is CloseRecords' and finish's to report
	if m.client != nil {
		m.client.Close()
	}
	if m.endpoint == nil {
		return nil
	}
	return m.endpoint.Close()
}

// Measure runs every step of the plan and returns the report: the one
// function that measures a plan. When ctx ends it returns the report so
// far, marked partial, with ctx's error. Writing the report out, and
// recording it as a baseline, are the face's (package load/render writes
// a report directory).
func Measure(ctx context.Context, plan Plan) (*report.Report, error) {
	s, err := Open(ctx, plan)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	rep, err := s.steps(ctx)
	return rep, s.finish(err)
}

// finish closes the per-request records, whose write error would
// otherwise go unseen.
func (m *Measurement) finish(err error) error {
	if rerr := m.CloseRecords(); rerr != nil && err == nil {
		err = rerr
	}
	if m.versus != nil {
		err = m.versus.finish(err)
	}
	return err
}

// onlyStarved reports whether st is invalid for client_saturation alone.
func onlyStarved(st *report.StepReport) bool {
	return st != nil && st.Verdict == report.VerdictInvalid && len(st.Hazards) == 1 &&
		st.Hazards[0].Kind == verdict.HazardClientSaturation
}

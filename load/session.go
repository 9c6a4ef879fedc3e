package load

import (
	"context"
	"fmt"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/fixtures/formats"
	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/vllmapi"
	"github.com/llmslo/llmslo/load/workload"
)

// Session is an open measurement: a plan run a step at a time into one
// report. It is the one run loop: Measure and Sweep (the command line) and
// slotest.Run (a subtest per step) all go through Step.
type Session struct {
	plan   Plan
	report *report.Report
	next   int // the workload index the next step starts at

	// Set by Open; nil for a session made from a bare plan.
	cfg       Config
	target    *Target
	client    *client.Client
	rows      int                 // fixture rows, for trace replays
	generator *workload.Generator // for chat prompts made exact before a step
	sessions  *workload.Sessions  // set when the fixture's sessions are replayed
	baseline  *report.Report      // nil unless comparing with one

	startOffset time.Duration // from Plan.StartAt to the next step's start
	// openEnded says the run's step count is not known ahead (a sweep),
	// for progress.
	openEnded bool
}

// NewSession runs a plan that the caller built (its own Doer and Workload):
// the engine without a target, for programs and tests.
func NewSession(p Plan) *Session {
	return &Session{plan: p, report: p.NewReport()}
}

// Run runs every step of a plan that the caller built and returns the
// report; when ctx ends it returns the report so far, marked partial.
func Run(ctx context.Context, p Plan) (*report.Report, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	return NewSession(p).Run(ctx)
}

// Open starts (or reaches) the target and prepares the workload. Close
// releases them.
func Open(ctx context.Context, cfg Config) (*Session, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	slos, err := verdict.ParseSLOs(cfg.SLOs)
	if err != nil {
		return nil, err
	}
	arr, err := arrival.Parse(cfg.Arrival)
	if err != nil {
		return nil, err
	}
	fx, err := formats.Open(cfg.Fixture)
	if err != nil {
		return nil, fmt.Errorf("fixture: %w", err)
	}
	if arr.Kind == arrival.Trace && len(fx.ArrivalOffsets()) == 0 {
		return nil, fmt.Errorf("--arrival %s replays the fixture's timestamps, and %s has none", arr, cfg.Fixture)
	}
	var baseline *report.Report
	if cfg.Baseline != "" && !cfg.UpdateBaseline {
		if baseline, err = LoadBaseline(cfg.Baseline, cfg.baselineHint()); err != nil {
			return nil, err
		}
	}
	target, err := StartTarget(ctx, cfg.Target)
	if err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, target: target, baseline: baseline}
	if err := s.prepare(ctx, fx, slos, arr); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Session) prepare(ctx context.Context, fx *fixtures.Fixture, slos []verdict.SLO, arr arrival.Spec) error {
	cfg := s.cfg
	if s.target.Model == "" || (cfg.MaxModelLen == 0 && s.target.maxModelLen == 0) {
		if err := s.target.checkHealth(ctx); err != nil {
			return err
		}
	}
	hc := s.target.httpClient()
	maxLen := cfg.MaxModelLen
	if maxLen == 0 {
		maxLen = s.target.maxModelLen
	}
	if maxLen > 0 {
		fx = fx.Clip(maxLen)
	}
	s.rows = fx.Len()
	c, err := s.target.client(cfg.API, cfg.MaxInFlight, cfg.StallTimeout, cfg.RequestTimeout)
	if err != nil {
		return err
	}
	s.client = c
	wopts := workload.Options{Seed: cfg.Seed, DisableSalt: !cfg.Salt, API: cfg.API, InOrder: arr.Kind == arrival.Trace}
	wopts.Salt = cfg.sharedSalt() // shards salt request k alike
	if cfg.API == workload.APIChat {
		wopts.Tokenizer = vllmapi.NewHTTPTokenizer(s.target.URL, s.target.Model, hc)
	}
	g, err := workload.New(fx, wopts)
	if err != nil {
		return fmt.Errorf("workload: %w", err)
	}
	s.generator = g
	info := fx.Info()
	s.plan = Plan{
		Target:                s.target.Info(),
		Doer:                  c,
		Workload:              g,
		Fixture:               &info,
		ExpectedPrefixHitRate: info.ExpectedPrefixHitRate,
		Trace:                 fx.ArrivalOffsets(),
		Rates:                 cfg.Rates,
		Arrival:               arr,
		Duration:              cfg.Duration,
		Warmup:                cfg.Warmup,
		Seed:                  cfg.Seed,
		SLOs:                  slos,
		Strict:                cfg.Strict,
		MaxInFlight:           cfg.MaxInFlight,
		DrainTimeout:          cfg.DrainTimeout,
		Cancel:                cfg.cancelPlan(),
		BaseURL:               s.target.URL,
		HTTPClient:            hc,
		ResetPrefixCache:      cfg.ResetPrefixCache,
		Thresholds:            cfg.Thresholds,
		MaxNumSeqs:            s.target.maxNumSeqs,
		Progress:              cfg.Progress,
		Shard:                 cfg.Shard,
		StartAt:               cfg.StartAt,
	}
	if err := s.openRecords(); err != nil {
		return err
	}
	if fx.Sessions != nil {
		s.useSessions(g, fx)
	}
	s.report = s.plan.NewReport()
	s.report.Shard = cfg.shardInfo()
	return nil
}

// Target is the server being measured (nil for a session made from a plan).
func (s *Session) Target() *Target { return s.target }

// Plan is the engine plan the session runs.
func (s *Session) Plan() *Plan { return &s.plan }

// Steps lists the rates the session's steps run at.
func (s *Session) Steps() []float64 { return s.plan.Steps() }

// Report is the report so far.
func (s *Session) Report() *report.Report { return s.report }

// Run runs every step in turn. When ctx ends it returns the report so far,
// marked partial, with ctx's error: nothing measured is lost.
func (s *Session) Run(ctx context.Context) (*report.Report, error) {
	for _, rate := range s.Steps() {
		if _, err := s.Step(ctx, rate, 0, -1); err != nil {
			return s.report, err
		}
	}
	return s.report, nil
}

// Step runs one step at rate, with duration and warm-up overriding the
// plan's when positive. Its report is added to the session's report, also
// when ctx cut it short (then marked partial and returned with ctx's error).
func (s *Session) Step(ctx context.Context, rate float64, duration, warmup time.Duration) (*report.StepReport, error) {
	p := s.plan
	if duration > 0 {
		p.Duration = duration
	}
	if warmup >= 0 && duration > 0 {
		p.Warmup = warmup
	}
	if p.Arrival.Kind == arrival.Trace && s.rows > 0 && s.next%s.rows != 0 {
		// A trace replay sends row k of the fixture at the trace's arrival
		// k: every step starts its schedule at the trace's beginning, so
		// it starts at a row-0 index too (prompts stay unique: their
		// content comes from the index, not the row).
		s.next += s.rows - s.next%s.rows
	}
	if err := s.nextStepStart(&p); err != nil {
		return nil, err
	}
	p.StepIndex = len(s.report.Steps) + 1
	if !s.openEnded {
		p.StepCount = max(len(s.Steps()), p.StepIndex)
	}
	if err := s.prepareSessions(ctx, rate, p); err != nil {
		return nil, fmt.Errorf("prepare prompts: %w", err)
	}
	if s.sessions == nil && s.generator != nil && s.cfg.API == workload.APIChat {
		// Text prompts are made exact through the server's /tokenize; do
		// that before the step, not on its send path.
		ahead := int(rate*(p.Warmup+p.Duration).Seconds()*1.2) + 64
		if err := s.prepareAhead(ctx, ahead); err != nil {
			return nil, fmt.Errorf("prepare prompts: %w", err)
		}
	}
	st, used, err := RunStep(ctx, p, rate, s.next)
	s.next += used
	var retried []string
	for s.cfg.StarvedRetries > len(retried) && err == nil && onlyStarved(st) && p.StepStart.IsZero() {
		retried = append(retried, st.Hazards[0].Kind+": "+st.Hazards[0].Message)
		st, used, err = RunStep(ctx, p, rate, s.next)
		s.next += used
	}
	if st != nil {
		st.Retried = retried
	}
	if st != nil && s.baseline != nil && err == nil {
		checks, berr := verdict.CompareBaseline(s.baseline, st, s.plan.Seed, s.cfg.BaselineTolerance)
		if berr != nil {
			// The step was measured: keep it in the report, say why it
			// could not be compared, and mark the run cut short.
			err = fmt.Errorf("%w: record it again with %s", berr, s.cfg.baselineHint())
		}
		st.Baseline = checks
		if len(verdict.Regressions(checks)) > 0 && st.Verdict == report.VerdictPass {
			st.Verdict = report.VerdictFail
		}
	}
	if st != nil {
		s.report.Steps = append(s.report.Steps, *st)
		s.report.Verdict = report.Worse(s.report.Verdict, st.Verdict)
		if s.plan.OnStep != nil {
			s.plan.OnStep(*st)
		}
		if s.plan.Progress != nil {
			s.plan.Progress.StepEnded(st)
		}
	}
	if err != nil {
		s.report.Partial = true
		s.report.Reason = err.Error()
	}
	return st, err
}

// ClosedLoop measures the same workload the way a concurrency-limited
// benchmark does, with clients that each wait for their previous answer, for
// the plan's duration, and judges the same SLOs. It exists to show the
// coordinated-omission trap beside an open-loop step; its report is not
// added to the session's report.
func (s *Session) ClosedLoop(ctx context.Context, clients int) (*report.StepReport, error) {
	st, used, err := RunClosedLoop(ctx, s.plan, clients, s.next)
	s.next += used
	return st, err
}

// Close releases the client and whatever the target started.
func (s *Session) Close() error {
	_ = s.CloseRecords() // its error is CloseRecords' and finish's to report
	if s.client != nil {
		s.client.Close()
	}
	if s.target == nil {
		return nil
	}
	return s.target.Close()
}

// Measure runs every step of cfg and returns the report. When ctx ends
// it returns the partial report with ctx's error; the report, whole or
// partial, is written to cfg.ReportDir when that is set.
func Measure(ctx context.Context, cfg Config) (*report.Report, error) {
	s, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	rep, err := s.Run(ctx)
	return rep, s.finish(err)
}

// finish writes the report directory, when one is configured. Recording a
// baseline is the face's call (RecordBaseline): it says so in its own way.
func (s *Session) finish(err error) error {
	if s.cfg.ReportDir != "" {
		if _, werr := WriteReport(s.report, s.cfg.ReportDir); werr != nil && err == nil {
			err = werr
		}
	}
	if rerr := s.CloseRecords(); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// onlyStarved reports whether st is invalid for client_saturation alone.
func onlyStarved(st *report.StepReport) bool {
	return st != nil && st.Verdict == report.VerdictInvalid && len(st.Hazards) == 1 &&
		st.Hazards[0].Kind == verdict.HazardClientSaturation
}

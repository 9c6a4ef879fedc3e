package slotest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/load"
)

// Session is an open measurement: a target, a workload and a plan, run a
// step at a time. Measure runs all steps; the go test face runs each step
// as a subtest.
type Session struct {
	cfg      Config
	target   *Target
	client   *load.Client
	plan     load.Plan
	report   *load.Report
	next     int
	fixture  *fixtures.Fixture
	workload *fixtures.Workload
	baseline *load.Report // nil unless comparing with one
}

// Open starts (or reaches) the target and prepares the workload. Close
// releases them.
func Open(ctx context.Context, cfg Config) (*Session, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	slos, err := load.ParseSLOs(cfg.SLOs)
	if err != nil {
		return nil, fmt.Errorf("slotest: %w", err)
	}
	arrival, err := load.ParseArrival(cfg.Arrival)
	if err != nil {
		return nil, fmt.Errorf("slotest: %w", err)
	}
	fx, err := fixtures.Open(cfg.Fixture)
	if err != nil {
		return nil, fmt.Errorf("slotest: fixture: %w", err)
	}
	var baseline *load.Report
	if cfg.Baseline != "" && !Updating() {
		if baseline, err = LoadBaseline(cfg.Baseline); err != nil {
			return nil, err
		}
	}
	target, err := StartTarget(ctx, cfg.Target)
	if err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, target: target, baseline: baseline}
	if err := s.prepare(ctx, fx, slos, arrival); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Session) prepare(ctx context.Context, fx *fixtures.Fixture, slos []load.SLO, arrival load.Arrival) error {
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
	s.fixture = fx
	client, err := s.target.client(cfg.API, cfg.MaxInFlight)
	if err != nil {
		return fmt.Errorf("slotest: %w", err)
	}
	s.client = client
	wopts := fixtures.WorkloadOptions{Seed: cfg.Seed, DisableSalt: !cfg.Salt, API: cfg.API, InOrder: arrival.Kind == load.ArrivalTrace}
	if cfg.API == load.APIChat {
		wopts.Tokenizer = fixtures.NewHTTPTokenizer(s.target.URL, s.target.Model, hc)
	}
	w, err := fixtures.NewWorkload(fx, wopts)
	if err != nil {
		return fmt.Errorf("slotest: workload: %w", err)
	}
	s.workload = w
	drain := cfg.DrainTimeout
	if drain == 0 {
		drain = max(30*time.Second, cfg.Duration)
	}
	info := fx.Info()
	s.plan = load.Plan{
		Target:                s.target.Info(),
		Doer:                  client,
		Workload:              w,
		Fixture:               info,
		ExpectedPrefixHitRate: info.ExpectedPrefixHitRate,
		Trace:                 fx.ArrivalOffsets(),
		Rates:                 cfg.Rates,
		Arrival:               arrival,
		Duration:              cfg.Duration,
		Warmup:                cfg.Warmup,
		Seed:                  cfg.Seed,
		SLOs:                  slos,
		Strict:                cfg.Strict,
		MaxInFlight:           cfg.MaxInFlight,
		DrainTimeout:          drain,
		BaseURL:               s.target.URL,
		HTTPClient:            hc,
		ResetPrefixCache:      cfg.ResetPrefixCache,
		Thresholds:            cfg.Thresholds,
		Progress:              cfg.Progress,
	}
	s.report = s.plan.NewReport()
	return nil
}

// Target is the server being measured.
func (s *Session) Target() *Target { return s.target }

// Plan is the engine plan the session runs.
func (s *Session) Plan() *load.Plan { return &s.plan }

// Steps lists the rates the session's steps run at.
func (s *Session) Steps() []float64 { return s.plan.Steps() }

// Report is the report so far.
func (s *Session) Report() *load.Report { return s.report }

// Step runs one step at rate, with duration and warm-up overriding the
// plan's when positive. Its report is added to the session's report, also
// when ctx cut it short (then marked partial and returned with ctx's error).
func (s *Session) Step(ctx context.Context, rate float64, duration, warmup time.Duration) (*load.StepReport, error) {
	p := s.plan
	if duration > 0 {
		p.Duration = duration
	}
	if warmup >= 0 && duration > 0 {
		p.Warmup = warmup
	}
	if p.Arrival.Kind == load.ArrivalTrace {
		// A trace replay sends row k of the fixture at the trace's arrival
		// k: every step starts its schedule at the trace's beginning, so
		// it starts at a row-0 index too (prompts stay unique: their
		// content comes from the index, not the row).
		if n := s.fixture.Len(); n > 0 && s.next%n != 0 {
			s.next += n - s.next%n
		}
	}
	if s.cfg.API == load.APIChat {
		// Text prompts are made exact through the server's /tokenize; do
		// that before the step, not on its send path.
		ahead := int(rate*(p.Warmup+p.Duration).Seconds()*1.2) + 64
		if err := s.workload.PrepareRange(ctx, s.next, s.next+ahead); err != nil {
			return nil, fmt.Errorf("slotest: prepare prompts: %w", err)
		}
	}
	st, used, err := load.RunStep(ctx, p, rate, s.next)
	s.next += used
	if st != nil && s.baseline != nil && err == nil {
		checks, berr := CompareBaseline(s.baseline, st, s.cfg.BaselineTolerance)
		if berr != nil {
			return st, berr
		}
		st.Baseline = checks
		if len(regressions(checks)) > 0 && st.Verdict == load.VerdictPass {
			st.Verdict = load.VerdictFail
		}
	}
	if st != nil {
		s.report.Steps = append(s.report.Steps, *st)
		s.report.Verdict = load.Worse(s.report.Verdict, st.Verdict)
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
func (s *Session) ClosedLoop(ctx context.Context, clients int) (*load.StepReport, error) {
	st, used, err := load.RunClosedLoop(ctx, s.plan, clients, s.next)
	s.next += used
	return st, err
}

// WriteReport writes the report into dir as report.json and report.html,
// and each step's latency histograms as an HDR log (STEP.hlog).
func (s *Session) WriteReport(dir string) (string, error) {
	path := filepath.Join(dir, "report.json")
	if err := s.report.WriteJSON(path); err != nil {
		return path, err
	}
	if err := WriteHTMLFile(filepath.Join(dir, "report.html"), s.report); err != nil {
		return path, err
	}
	for i := range s.report.Steps {
		st := &s.report.Steps[i]
		var b bytes.Buffer
		if err := st.WriteHDRLog(&b, s.report.StartedAt); err != nil {
			return path, err
		}
		name := strings.NewReplacer("/", "_", "=", "-", " ", "_").Replace(st.Name) + ".hlog"
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			return path, fmt.Errorf("write hdr log: %w", err)
		}
	}
	return path, nil
}

// Close releases the client and whatever the target started.
func (s *Session) Close() error {
	if s.client != nil {
		s.client.Close()
	}
	return s.target.Close()
}

// Measure runs every step of cfg and returns the report. When ctx ends
// it returns the partial report with ctx's error; the report, whole or
// partial, is written to cfg.ReportDir when that is set.
func Measure(ctx context.Context, cfg Config) (*load.Report, error) {
	s, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	for _, rate := range s.Steps() {
		if _, err = s.Step(ctx, rate, 0, -1); err != nil {
			break
		}
	}
	if cfg.ReportDir != "" {
		if _, werr := s.WriteReport(cfg.ReportDir); werr != nil && err == nil {
			err = werr
		}
	}
	return s.report, err
}

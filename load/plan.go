package load

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/workload"
)

// Defaults of a Plan.
const (
	DefaultFixture  = "azure-conv-2023"
	DefaultDuration = 60 * time.Second
	DefaultWarmup   = 10 * time.Second
	DefaultSeed     = 1
)

// DefaultMinDuration is the floor of a step run until decided: ten
// seconds measured, so that a percentile's design effect has the eight
// one-second clusters it is estimated from (stats.Clusters.DesignEffect)
// with two to spare, and the trend its blocks, before any look may stop
// the step (docs/verdicts.md).
const DefaultMinDuration = 10 * time.Second

// DefaultRates are the rate steps when none are given: a moderate rate and
// twice it. At the default 60 s each gives the 200 requests a p95 needs.
// A function, so that no caller can change them for every other.
func DefaultRates() []float64 { return []float64{4, 8} }

// Plan is a whole measurement, as typed values: what each face (slotest,
// the llmslo command) builds from its own input once, at its edge, and what
// Measure, Open and tune.Sweep take. DefaultPlan holds the defaults; a Plan
// needs a Target and a Fixture besides.
type Plan struct {
	// Target is the server to measure: started (the simulator, a
	// container) or reached (a URL) when the measurement opens.
	Target Target
	// Fixture holds the request lengths to replay (and sessions, and
	// arrival times, when it has them); package fixtures/formats opens
	// one by name or path.
	Fixture *fixtures.Fixture
	Rates   []float64
	Arrival arrival.Spec
	// Process, when set, is a custom arrival process that replaces
	// Arrival: it gives each step's whole schedule (warm-up and measured
	// window as one, at the step's rate) and a step sends every offset it
	// returns. The report names the step's arrival "custom".
	Process  arrival.Process
	Duration time.Duration
	Warmup   time.Duration
	// UntilDecided runs each step until its verdict is decided: it looks
	// at the step every second once MinDuration is measured, and stops it
	// as soon as every SLO, the error guard and the baseline comparison
	// are conclusive on intervals valid at every look, and no hazard
	// needs more data (verdict.JudgeLook). Duration is then the cap: a step
	// not decided by it is judged on its full window, as any step is.
	// Open-loop arrivals only (not sessions), not sharded; an overload
	// step runs its whole window.
	UntilDecided bool
	// MinDuration is the floor of a step run until decided: no look stops
	// it earlier. Zero means DefaultMinDuration.
	MinDuration time.Duration
	Seed        int64
	API         workload.API
	// SLOs are the objectives each step is judged on (verdict.ParseSLOs
	// reads their text form); the error-rate guard is added when absent.
	SLOs []verdict.SLO
	// Strict passes a latency SLO only when the upper end of its 95%
	// interval is within the limit.
	Strict bool
	// StarvedRetries measures a step again, up to this many times, when
	// its only hazard is client_saturation: a starved client says nothing
	// of the server, and a shared CI machine starves one now and then.
	// Each discarded attempt is listed in the kept step's Retried. Not with
	// a start time (shards): those steps keep a common clock.
	StarvedRetries int
	MaxInFlight    int
	// StallTimeout abandons a request when no byte of its response came
	// for this long (client default 60s); RequestTimeout abandons one that
	// took this long in all (client default 10m). An abandoned request
	// counts against the error rate and enters TTFT and E2EL as a lower
	// bound: what the user had waited when the client gave up.
	StallTimeout   time.Duration
	RequestTimeout time.Duration
	// CancelRate abandons that fraction of requests CancelAfter after
	// their intended send time, closing the connection as a user pressing
	// stop does.
	// Which requests is a draw on Seed and the request's index. They are
	// counted as abandoned: not failures, and out of the error rate, of
	// goodput's denominator and of the latency percentiles.
	CancelRate  float64
	CancelAfter time.Duration
	// RequestsOut, when set, receives one JSON line per request
	// (docs/requests.md).
	RequestsOut string
	// DrainTimeout bounds the wait for in-flight requests after a step's
	// last send; zero means the larger of 30s and the step's duration.
	DrainTimeout time.Duration
	// ThinkTimeScale multiplies every think time of a session replay
	// (default 1; it must be positive); MaxThink, when positive, caps a
	// scaled think time. See docs/sessions.md.
	ThinkTimeScale float64
	MaxThink       time.Duration
	// Salt puts a per-run nonce in every prompt so nothing is served from
	// a previous run's cache; ResetPrefixCache resets the server's prefix
	// cache before each step where it allows. Both default to true; with
	// both off, re-runs send identical prompts to a warm cache.
	Salt             bool
	ResetPrefixCache bool
	Thresholds       verdict.Thresholds

	// ResetRunningRequests lets that reset preempt requests the server is
	// still running when it does not go idle within 10 s (vLLM's
	// reset_running_requests): off by default, since they are recomputed.
	ResetRunningRequests bool

	// MaxModelLen clips requests that would not fit (input + output), and
	// the report counts them; zero means the max_model_len the server
	// reports in GET /v1/models, as vLLM does, and no clipping when it
	// reports none.
	MaxModelLen int
	// FitMargin is how many times max_num_seqs the KV cache must hold
	// requests of the fixture's p95 size before Fit reports a finding
	// (report.Fit); zero means 1.
	FitMargin float64
	// LengthsAdvisory declares a server that stops at EOS whatever
	// ignore_eos says (it cannot honour the asked output lengths): its
	// outputs are judged as given, a short one counted (length_ended_early)
	// rather than taken as a mismatch, and a step whose outputs came back
	// short says the workload was lighter than asked. Without it a step
	// whose outputs came back short is invalid (length_mismatch), and a
	// URL target that ignores ignore_eos in the probe is refused.
	LengthsAdvisory bool
	// Overload, when set, runs every step as an overload step: judged by
	// the overload gate (verdict.JudgeOverload) instead of the error guard
	// that counts shed requests against the server.
	Overload *verdict.OverloadSettings
	// Baseline, when set, is a recorded report (ReadBaseline) each step is
	// compared with; BaselineTolerance is the slowdown allowed, a positive
	// fraction (DefaultPlan holds DefaultBaselineTolerance).
	Baseline          *report.Report
	BaselineTolerance float64
	// Progress watches each step as it runs (internal/progress draws it
	// for the faces); nil means none.
	Progress Progress
	// Shard makes the process send only its share of each step's schedule
	// (see Shard); StartAt, when set, is the wall-clock instant the first
	// step starts at, shared by all shards, and later steps start at fixed
	// offsets from it (docs/sharding.md).
	Shard   Shard
	StartAt time.Time
	// Versus, when set, runs the plan side by side (docs/versus.md): the
	// same requests, from the same seed, go to Target and to Versus, the
	// base (the server a change is judged against), at the same moments
	// (VersusMode VersusTogether, the default). Each side's steps are
	// judged on their SLOs, and each of Target's gated percentiles is
	// compared with the base's, paired second by second: a ratio whose
	// interval lies wholly beyond ×(1 + VersusTolerance) fails the step
	// (0: DefaultVersusTolerance). With VersusMode VersusAlternate the load
	// moves between the two in blocks of at most VersusBlock (0:
	// DefaultVersusBlock) measured seconds, an even number of them, in
	// ABBA order, each after a transient of Warmup that is sent but not
	// measured.
	Versus          Target
	VersusMode      string
	VersusTolerance float64
	VersusBlock     time.Duration

	salt string // the prompts' salt, shared with another plan (shards, Versus)
}

// DefaultPlan returns a Plan holding every default but the target and the
// fixture, which the face chooses (both faces default to the simulator and
// DefaultFixture).
func DefaultPlan() Plan {
	return Plan{
		Rates:            DefaultRates(),
		Arrival:          arrival.Spec{Kind: arrival.Poisson},
		Duration:         DefaultDuration,
		Warmup:           DefaultWarmup,
		Seed:             DefaultSeed,
		API:              workload.APICompletions,
		SLOs:             verdict.DefaultSLOs(),
		Salt:             true,
		ResetPrefixCache: true,
		ThinkTimeScale:   1,
		// Used only with a Baseline, which must allow some slowdown.
		BaselineTolerance: DefaultBaselineTolerance,
	}
}

func (p *Plan) validate() error {
	switch {
	case p.Target == nil:
		return errors.New("the plan has no target")
	case p.Fixture == nil:
		return errors.New("the plan has no fixture")
	case p.arrival().Kind == arrival.Trace && len(p.Fixture.ArrivalOffsets()) == 0:
		return fmt.Errorf("arrival %s replays the fixture's timestamps, and %s has none", p.Arrival, p.Fixture.Name)
	}
	if err := p.checkSettings(); err != nil {
		return err
	}
	return p.validateShard()
}

// checkSettings checks every setting that needs neither the target nor the
// fixture, each here alone: the faces only rename the fields of the
// *SettingError it returns (NameSettings).
func (p *Plan) checkSettings() error {
	for _, check := range []func() error{p.checkPacing, p.checkRates, p.Thresholds.Validate, p.checkRetries, p.checkJudging, p.validateThink, p.validateCancel, p.checkVersus} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// customArrival is the arrival a Plan.Process gives its steps, as the
// report names it.
const customArrival arrival.Kind = "custom"

// arrival is what the steps follow: Arrival, unless a Process replaces it.
func (p *Plan) arrival() arrival.Spec {
	if p.Process != nil {
		return arrival.Spec{Kind: customArrival}
	}
	return p.Arrival
}

// MaxRate bounds a step's rate: a million requests per second is past
// any one server, and bounds the schedule a step builds.
const MaxRate = 1e6

// checkRates checks Rates: one step at each, but for a trace replayed at
// its own pace, which takes none.
func (p *Plan) checkRates() error {
	if a := p.arrival(); a.Kind == arrival.Trace && a.Speed > 0 {
		return nil
	}
	if len(p.Rates) == 0 {
		return &SettingError{Field: "Rates", Problem: "is required, e.g. {Rates} 2,4,8"}
	}
	for _, r := range p.Rates {
		if !(r > 0 && r <= MaxRate) {
			return &SettingError{Field: "Rates", Value: fmt.Sprint(r), Problem: fmt.Sprintf("want a positive number of requests per second, at most %.0f", float64(MaxRate))}
		}
	}
	return nil
}

// checkPacing checks the step's length and its warm-up's.
func (p *Plan) checkPacing() error {
	if p.Duration <= 0 {
		return &SettingError{Field: "Duration", Value: p.Duration.String(), Problem: "want a positive duration"}
	}
	if p.Warmup < 0 {
		return &SettingError{Field: "Warmup", Value: p.Warmup.String(), Problem: "want 0 (none) or a positive duration"}
	}
	return p.checkUntilDecided()
}

// checkUntilDecided checks the floor of a step run until decided, and
// that its steps can stop early.
func (p *Plan) checkUntilDecided() error {
	if p.MinDuration < 0 || p.MinDuration > p.Duration {
		return &SettingError{Field: "MinDuration", Value: p.MinDuration.String(),
			Problem: fmt.Sprintf("want 0 (the default %s) or a duration up to {Duration} (%s)", DefaultMinDuration, p.Duration)}
	}
	if p.UntilDecided && p.Shard.Count > 1 {
		// Each shard would stop on its own share's evidence, and the
		// shards' windows would differ.
		return &SettingError{Field: "UntilDecided", Problem: "stops a step on all of its evidence; a shard holds only its share (run the shards to their --duration)"}
	}
	return nil
}

// minDuration is the floor of a step run until decided.
func (p *Plan) minDuration() time.Duration {
	if p.MinDuration > 0 {
		return p.MinDuration
	}
	return min(DefaultMinDuration, p.Duration)
}

// checkJudging checks the settings that qualify others: the fit margin,
// the baseline's tolerance, the reset of running requests.
func (p *Plan) checkJudging() error {
	switch {
	case !(p.FitMargin >= 0) || math.IsInf(p.FitMargin, 0):
		return &SettingError{Field: "FitMargin", Value: fmt.Sprint(p.FitMargin), Problem: "want a positive number of times max_num_seqs (0: 1)"}
	case p.Baseline != nil && (!(p.BaselineTolerance > 0) || math.IsInf(p.BaselineTolerance, 0)):
		return &SettingError{Field: "BaselineTolerance", Value: fmt.Sprint(p.BaselineTolerance), Problem: "want a positive fraction, e.g. 0.1"}
	case p.ResetRunningRequests && !p.ResetPrefixCache:
		return &SettingError{Field: "ResetRunningRequests", Problem: "qualifies the prefix-cache reset, which {ResetPrefixCache} turns off"}
	}
	return nil
}

func (p *Plan) checkRetries() error {
	if p.StarvedRetries < 0 {
		return &SettingError{Field: "StarvedRetries", Value: fmt.Sprint(p.StarvedRetries), Problem: "must not be negative"}
	}
	return nil
}

// DrainBound is how long a step waits for its last requests after its last
// send: DrainTimeout, or the larger of the dispatcher's default and the
// step's duration.
func (p *Plan) DrainBound() time.Duration {
	if p.DrainTimeout > 0 {
		return p.DrainTimeout
	}
	return max(dispatch.DefaultDrainTimeout, p.Duration)
}

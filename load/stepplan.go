package load

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/workload"
)

// stepPlan is what the run loop measures with: the Plan as the user gave
// it, joined by what Open derived from the started target and the fixture
// (the client as the Doer, the workload, the server's limits, the report's
// header). No setting of the Plan is copied: a new setting is one Plan
// field, read here through the embedding. Tests build one by hand to drive
// the loop with their own Doer and Workload; programs use a Plan.
type stepPlan struct {
	Plan

	TargetInfo report.TargetInfo
	// Send is how the steps send: the Doer (the client, or a test's), with
	// the plan's in-flight cap and drain bound, which settle fills.
	Send     dispatch.Sender
	Workload workload.Workload
	// FixtureInfo describes the workload in the report.
	FixtureInfo *fixtures.Info
	// ExpectedPrefixHitRate is the fixture's own prefix sharing, against
	// which the warm_cache hazard judges the server's hit rate.
	ExpectedPrefixHitRate float64
	// Trace holds the fixture's arrival offsets, for trace arrivals.
	Trace []time.Duration
	// Sessions, when set, makes each step replay sessions instead of
	// requests (docs/sessions.md): each arrival starts one, and rates
	// count sessions per second. Workload may then be nil.
	Sessions *SessionReplay
	// Cancel abandons a drawn fraction of requests mid-stream.
	Cancel dispatch.CancelPlan
	// Records, when set, receives a record of every request, warm-up
	// included, and is flushed at the end of each step.
	Records *observe.Records

	// BaseURL and HTTPClient reach the server's /metrics and
	// /reset_prefix_cache. An empty BaseURL disables both.
	BaseURL    string
	HTTPClient *http.Client
	// MaxNumSeqs is the server's max_num_seqs when known (0: unknown),
	// for naming what binds a failing step.
	MaxNumSeqs int

	// paired joins the deciders of a step run side by side until decided
	// (pairedLooks); pairedBase says this plan is the base's side.
	paired     *pairedLooks
	pairedBase bool

	// StepStart is the start of the step being run (set by
	// Measurement.Step), zero for as soon as it is ready.
	StepStart time.Time
	// StepIndex and StepCount are the step's place in the run, for
	// Progress (set by Measurement.Step; zero when unknown).
	StepIndex, StepCount int
	// Features is what a probe found of a server llmslo did not start
	// (nil: one with vLLM's extras).
	Features *serverFeatures

	// progressName names the step to Progress when it is a part of one
	// (an alternating block); empty: the step's name.
	progressName string

	// baselinePaired says the plan was checked against its baseline
	// (Open's checkBaseline): both send the same requests on the same
	// schedule. A plan built by hand is compared unpaired.
	baselinePaired bool

	// judge is what verdict takes from the plan, the same for every step:
	// derived once, by settle.
	judge verdict.Criteria
	// overload judges the run's overload steps in turn (settle makes one
	// per run from Plan.Overload, which stays a plain setting).
	overload *verdict.OverloadRun
}

// settle checks what Open (or a test) joined to the plan, whose own
// settings Plan validation checked, and completes once what each step hands
// to dispatch and verdict, so that no step builds them again.
func (p *stepPlan) settle() error {
	switch {
	case p.Send.Doer == nil:
		return errors.New("plan has no Doer")
	case p.Workload == nil && p.Sessions == nil:
		return errors.New("plan has no Workload")
	case p.Sessions != nil && p.UntilDecided:
		return &SettingError{Field: "UntilDecided", Problem: "stops open-loop steps; a session replay runs its whole window"}
	case p.Sessions != nil:
		if err := p.Sessions.validate(); err != nil {
			return err
		}
	}
	p.Send.MaxInFlight, p.Send.DrainTimeout = p.MaxInFlight, p.DrainBound()
	p.judge = p.judging()
	if p.Overload != nil {
		p.overload = &verdict.OverloadRun{Settings: *p.Overload}
	}
	return nil
}

// stepName is the name of the step at a rate, as a subtest would be called.
func stepName(a arrival.Spec, rate float64) string {
	if a.Kind == arrival.Trace && a.Speed > 0 {
		return fmt.Sprintf("trace=%gx", a.Speed)
	}
	return fmt.Sprintf("rate=%g", rate)
}

// runRates lists the rates a plan runs: its Rates, or one step for a trace
// replayed at its own pace.
func (p *Plan) runRates() []float64 {
	if p.Arrival.Kind == arrival.Trace && p.Arrival.Speed > 0 {
		return []float64{0}
	}
	return p.Rates
}

// newReport starts a report for the plan; its steps fill it.
func (p *stepPlan) newReport() *report.Report {
	r := &report.Report{Version: report.Version, StartedAt: time.Now().UTC(), Target: p.TargetInfo, Fixture: p.FixtureInfo, Seed: p.Seed, Run: p.runInfo()}
	for _, s := range verdict.Guarded(p.SLOs) {
		r.SLO = append(r.SLO, s.Spec())
	}
	return r
}

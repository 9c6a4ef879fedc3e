package load

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
)

// VersusTogether is the side-by-side mode that sends the whole schedule
// to both servers at the same moments (report.VersusTogether).
const VersusTogether = report.VersusTogether

// VersusAlternate is the side-by-side mode that moves the load between the
// two servers in blocks, in ABBA order (report.VersusAlternate).
const VersusAlternate = report.VersusAlternate

// DefaultVersusBlock is an alternating run's longest measured block: short
// enough that a pair of blocks (with their transients, about 30 s) sees
// one state of a drift with a period of minutes, and long beside its
// transient (docs/versus.md, "Modes"). A 30 s step is cut into four
// blocks of 8, 8, 7 and 7 s.
const DefaultVersusBlock = 10 * time.Second

// DefaultVersusTolerance is how much slower than the base server, side by
// side, a gated percentile may be before it counts as a regression: half a
// recorded baseline's, since the two servers share their minutes (the
// paired interval of two servers alike was a sixth as wide as two
// unpaired runs', and at 5% an unchanged server raised no false alarm in
// 40 trials under drift; docs/gatepower.md, "Drift").
const DefaultVersusTolerance = 0.05

// versusLead is the time from both targets being ready to the first
// step's shared start: enough for each side's prefix-cache reset and
// dispatcher.
const versusLead = time.Second

// checkVersus checks a side-by-side plan's settings.
func (p *Plan) checkVersus() error {
	if p.Versus == nil {
		if p.VersusMode != "" {
			return &SettingError{Field: "VersusMode", Problem: "needs {Versus}, the base side's target"}
		}
		if p.VersusBlock != 0 {
			return &SettingError{Field: "VersusBlock", Problem: "needs {Versus}, the base side's target"}
		}
		return nil
	}
	switch {
	case p.VersusMode != "" && p.VersusMode != VersusTogether && p.VersusMode != VersusAlternate:
		return &SettingError{Field: "VersusMode", Value: p.VersusMode, Problem: "want " + VersusTogether + " or " + VersusAlternate}
	case p.VersusBlock != 0 && p.VersusMode != VersusAlternate:
		return &SettingError{Field: "VersusBlock", Value: p.VersusBlock.String(), Problem: "cuts the load in blocks only with VersusMode " + VersusAlternate}
	case p.VersusMode == VersusAlternate && p.UntilDecided:
		return &SettingError{Field: "UntilDecided", Problem: "stops a step once decided; alternating runs each side's whole window in blocks, its comparison only whole at the end: use {VersusMode} " + VersusTogether}
	case p.Baseline != nil:
		return &SettingError{Field: "Versus", Problem: "compares with a server run beside this one; {Baseline} compares with a recorded run: choose one"}
	case p.Shard.Sharded() || !p.StartAt.IsZero():
		return &SettingError{Field: "Versus", Problem: "sets its own start for both sides: a shard or {StartAt} cannot be run side by side"}
	case p.Overload != nil:
		return &SettingError{Field: "Versus", Problem: "compares latencies; an overload step ({Overload}) is judged by its gate, and its shed requests have none"}
	case p.Fixture != nil && p.Fixture.Sessions != nil:
		return &SettingError{Field: "Versus", Problem: "sends one schedule to both servers at once; a fixture replayed as sessions ({Fixture}) paces each turn on its own server's answer"}
	case p.VersusTolerance < 0 || math.IsNaN(p.VersusTolerance) || math.IsInf(p.VersusTolerance, 0):
		return &SettingError{Field: "VersusTolerance", Value: fmt.Sprint(p.VersusTolerance), Problem: "want a positive fraction, e.g. 0.1"}
	case p.VersusMode == VersusAlternate:
		return p.checkAlternate()
	}
	return nil
}

// versusSides are the two plans of a side-by-side run: this one's target,
// and the base's, each sending the same requests (one salt) and neither
// measuring a step again (their steps keep one clock).
func (p Plan) versusSides() (pr, base Plan) {
	pr, base = p, p
	pr.Versus, base.Versus, base.VersusMode, base.VersusBlock = nil, nil, "", 0 // pr keeps how the two alternate
	pr.VersusTolerance, base.VersusTolerance = p.versusTolerance(), 0
	base.Target, base.Progress = p.Versus, nil
	pr.StarvedRetries, base.StarvedRetries = 0, 0
	if p.Salt {
		salt := fmt.Sprintf("versus:%d:seed:%d", time.Now().UnixNano(), p.Seed)
		pr.salt, base.salt = salt, salt
	}
	if p.RequestsOut != "" {
		ext := filepath.Ext(p.RequestsOut)
		base.RequestsOut = strings.TrimSuffix(p.RequestsOut, ext) + ".versus" + ext
	}
	return pr, base
}

// versusTolerance is the plan's, or the default.
func (p *Plan) versusTolerance() float64 { return cmp.Or(p.VersusTolerance, DefaultVersusTolerance) }

// openVersus opens the base side of a side-by-side plan beside m, this
// side's measurement: both targets start before either sends.
func (m *Measurement) openVersus(ctx context.Context, base Plan, tolerance float64) error {
	b, err := Open(ctx, base)
	if err != nil {
		return fmt.Errorf("the base side (Versus): %w", err)
	}
	m.versus = b
	m.report.Versus = &report.Versus{Mode: cmp.Or(m.plan.VersusMode, VersusTogether), Target: b.endpoint.Info(), Tolerance: tolerance}
	if m.report.Versus.Mode == VersusAlternate {
		for _, b := range m.plan.VersusBlocks() {
			m.report.Versus.BlocksS = append(m.report.Versus.BlocksS, b.Seconds())
		}
		m.report.Versus.TransientS = m.plan.Warmup.Seconds()
	}
	return nil
}

// versusStep runs one step at rate on both sides at once, from one start
// shared by both, judges this side's against the base's, and adds each to
// its side's report.
func (m *Measurement) versusStep(ctx context.Context, rate float64) (*report.StepReport, error) {
	if m.report.Versus.Mode == VersusAlternate {
		return m.alternateStep(ctx, rate)
	}
	type side struct {
		m   *Measurement
		p   stepPlan
		st  *report.StepReport
		err error
	}
	sides := []*side{{m: m}, {m: m.versus}}
	for _, s := range sides {
		if s.p, s.err = s.m.nextStepPlan(rate); s.err != nil {
			return nil, s.err
		}
		if err := s.m.preparePrompts(ctx, rate, s.p); err != nil {
			return nil, fmt.Errorf("prepare prompts: %w", err)
		}
	}
	if m.plan.UntilDecided {
		// This side looks at both and stops both (pairedLooks).
		looks := &pairedLooks{stop: make(chan struct{}), tolerance: m.report.Versus.Tolerance}
		sides[0].p.paired, sides[1].p.paired, sides[1].p.pairedBase = looks, looks, true
	}
	// The shared start once both sides' prompts are made: a start set
	// before would pass while the chat prompts went through /tokenize.
	start := time.Now().Add(versusLead)
	for _, s := range sides {
		s.p.StepStart = start
	}
	var wg sync.WaitGroup
	for _, s := range sides {
		wg.Go(func() { s.st, s.err = s.m.measureStep(ctx, rate, s.p) })
	}
	wg.Wait()
	return m.addVersusStep(sides[0].st, sides[1].st, sides[0].err, sides[1].err)
}

// addVersusStep judges this side's step own against the base's, and adds
// each to its side's report.
func (m *Measurement) addVersusStep(own, base *report.StepReport, ownErr, baseErr error) (*report.StepReport, error) {
	err := cmp.Or(ownErr, baseErr)
	if own != nil && base != nil && err == nil {
		err = verdict.JudgeVersus(own, base, m.report.Versus.Tolerance)
	}
	m.versus.addStep(base, baseErr)
	m.report.Versus.Steps, m.report.Versus.Verdict = m.versus.report.Steps, m.versus.report.Verdict
	m.addStep(own, err)
	return own, err
}

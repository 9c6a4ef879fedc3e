package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/workload"
)

// SessionReplay makes a plan replay sessions (docs/sessions.md): each
// arrival of a step starts the session Source gives for it, whose turns
// then follow one another as the recorded client's did.
type SessionReplay struct {
	Source dispatch.SessionSource
	// ThinkScale multiplies every think time (0 means 1); MaxThink, when
	// positive, caps a scaled think time.
	ThinkScale float64
	MaxThink   time.Duration
	// ThinkIsGap says the source's think times are send-to-send gaps
	// (fixtures.Provenance.ThinkIsGap).
	ThinkIsGap bool
}

func (r *SessionReplay) validate() error {
	if r.Source == nil {
		return errors.New("session replay has no Source")
	}
	return nil // its think settings are the Plan's, checked there
}

func (p *Plan) validateThink() error {
	if !(p.ThinkTimeScale > 0) || math.IsInf(p.ThinkTimeScale, 0) {
		return &SettingError{Field: "ThinkTimeScale", Value: fmt.Sprint(p.ThinkTimeScale), Problem: "want a positive number (1 replays think times as recorded)"}
	}
	if p.MaxThink < 0 {
		return &SettingError{Field: "MaxThink", Value: p.MaxThink.String(), Problem: "want 0 (no cap on a think time) or a positive duration"}
	}
	// Think settings pace a session replay; on a fixture without sessions
	// they would be ignored, silently, in every face.
	if p.Fixture != nil && p.Fixture.Sessions == nil {
		switch {
		case p.MaxThink > 0:
			return &SettingError{Field: "MaxThink", Value: p.MaxThink.String(), Problem: "paces the turns of a session replay; {Fixture} " + p.Fixture.Name + " has no sessions"}
		case p.ThinkTimeScale != 1:
			return &SettingError{Field: "ThinkTimeScale", Value: fmt.Sprint(p.ThinkTimeScale), Problem: "paces the turns of a session replay; {Fixture} " + p.Fixture.Name + " has no sessions"}
		}
	}
	return nil
}

// useSessions makes the session replay a fixture with sessions: arrivals
// start sessions, a trace replay takes the sessions' own start times, and
// warm_cache expects the hit rate that reuse inside sessions implies.
func (m *Measurement) useSessions(g *workload.Generator, fx *fixtures.Fixture) {
	ss, err := g.Sessions()
	if err != nil {
		return // cannot happen: fx has sessions
	}
	m.sessions = ss
	m.rows = ss.Len()
	m.plan.Sessions = &SessionReplay{Source: ss, ThinkScale: m.plan.ThinkTimeScale, MaxThink: m.plan.MaxThink,
		ThinkIsGap: fx.Provenance.ThinkIsGap}
	m.plan.ExpectedPrefixHitRate = ss.ExpectedPrefixHitRate()
	m.plan.Trace = nil
	if fx.Provenance.SessionsTimed {
		offs := make([]time.Duration, len(fx.Sessions))
		for i, root := range fx.Sessions {
			offs[i] = root.StartOffset
		}
		if slices.IsSorted(offs) {
			m.plan.Trace = offs
		}
	}
}

// prepareSessions measures the chat prompts of the sessions the next step
// may start, before it starts: their turns are not built on the send path.
func (m *Measurement) prepareSessions(ctx context.Context, rate float64, p stepPlan) error {
	if m.sessions == nil || m.plan.API != workload.APIChat {
		return nil
	}
	return m.sessions.PrepareSessions(ctx, m.next, m.next+promptsAhead(rate, p, 8))
}

// runSessionStep is runStep for a session replay: the same loop, with the
// session dispatcher, and the recorder's figures joined by the sessions'
// and the turns' by position.
func runSessionStep(ctx context.Context, p stepPlan, rate float64, firstIndex int) (*report.StepReport, int, error) {
	sched, err := p.schedule(rate, p.Seed+int64(firstIndex))
	if err != nil {
		return nil, 0, err
	}
	// Time to start the dispatcher's helpers and to build the first
	// sessions' first turns, whose prompts may be tens of thousands of
	// tokens long.
	f, err := p.openStep(ctx, rate, 100*time.Millisecond)
	if err != nil {
		return nil, 0, err
	}
	turns := observe.NewTurns(p.recorder(f.rec, f.name, f.start, f.measureFrom))
	r := p.Sessions
	d := dispatch.SessionLoop{Schedule: sched, Start: f.start, Source: r.Source, FirstIndex: firstIndex, MeasureFrom: p.Warmup,
		Sender: p.Send, Sink: turns, ThinkScale: r.ThinkScale, MaxThink: r.MaxThink, ThinkIsGap: r.ThinkIsGap}
	res, runErr := d.Run(ctx)
	st, runErr := f.close(ctx, res.Canceled, runErr, func(st *report.StepReport, ev *observe.Evidence) {
		turns.Fill(st, countFrom(sched, p.Warmup), f.measureFrom, p.Duration)
		st.Sessions.ThinkTimeScale = r.ThinkScale
		if st.Sessions.ThinkTimeScale == 0 {
			st.Sessions.ThinkTimeScale = 1
		}
		st.Sessions.MaxThinkS = r.MaxThink.Seconds()
		st.Sessions.ExpectedPrefixHitRate = p.ExpectedPrefixHitRate
		// A session's turns are not scheduled ahead: those that fell due
		// are the ones sent or dropped; those the step's end left unsent
		// never were.
		st.Requests.Scheduled = st.Requests.Sent + st.Requests.Dropped
	})
	return st, len(sched), runErr
}

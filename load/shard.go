package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/workload"
)

// Shard is one of Count processes that together send one schedule: the
// process with Index (0-based) sends arrivals Index, Index+Count, … of the
// schedule a single client would send, with the same workload indices, so
// request k is the same request whichever shard sends it. The zero Shard
// (Count 0) sends the whole schedule.
type Shard struct {
	Index, Count int
}

// Sharded reports whether the process sends only a share of the schedule.
func (s Shard) Sharded() bool { return s.Count > 0 }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard reads "I/N": shard I (0-based) of N.
func ParseShard(v string) (Shard, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(v), "/")
	idx, err1 := strconv.Atoi(strings.TrimSpace(i))
	cnt, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want I/N, e.g. 0/4", v)
	}
	s := Shard{Index: idx, Count: cnt}
	return s, s.validate()
}

func (s Shard) validate() error {
	if s.Count == 0 && s.Index == 0 {
		return nil
	}
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d/%d: the index must be in [0, %d)", s.Index, s.Count, max(s.Count, 1))
	}
	return nil
}

// ParseStartAt reads a start instant as unix seconds (fractions allowed)
// or RFC 3339.
func ParseStartAt(v string) (time.Time, error) {
	v = strings.TrimSpace(v)
	if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 {
		sec := int64(f)
		return time.Unix(sec, int64((f-float64(sec))*1e9)), nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("start time %q: want unix seconds or RFC 3339 (2026-05-01T12:00:00Z)", v)
	}
	return t, nil
}

// MaxStartLate is how far in the past a shared start may be when the first
// step is due: a shard that starts later than that has missed its share.
const MaxStartLate = time.Second

// validateShard checks what sharding asks of the rest of the config.
func (p *Plan) validateShard() error {
	if err := p.Shard.validate(); err != nil {
		return err
	}
	if err := checkStartAt(p.StartAt); err != nil {
		return err
	}
	if p.StarvedRetries > 0 && !p.StartAt.IsZero() {
		// Steps on a shared clock start at fixed instants: a step measured
		// again would run into the next one's.
		return errors.New("a plan with a start time (Plan.StartAt) keeps its steps on a fixed clock and cannot measure one again: set Plan.StarvedRetries to 0")
	}
	if !p.Shard.Sharded() {
		return nil
	}
	_, shared := p.Target.(URLTarget)
	switch {
	case p.StartAt.IsZero():
		return errors.New("a shard needs a start time shared by all shards (Plan.StartAt)")
	case !shared:
		return errors.New("shards must measure one shared server: the target starts a server of each shard's own; give its URL")
	case p.Baseline != nil:
		return errors.New("a shard holds a share of the samples: compare the merged report with a baseline, not a shard")
	case p.Fixture != nil && p.Fixture.Sessions != nil:
		// A merged report would need each shard's turns by position, and
		// rates that count sessions: not there yet.
		return errors.New("a session replay cannot be sharded yet: run it from one process")
	}
	return nil
}

// checkStartAt fails when the shared start has passed by more than
// MaxStartLate: the shard would send its share late.
func checkStartAt(at time.Time) error {
	if late := time.Since(at); !at.IsZero() && late > MaxStartLate {
		return fmt.Errorf("the start time %s passed %v ago: choose one far enough ahead for every shard to be ready",
			at.UTC().Format(time.RFC3339), late.Round(time.Millisecond))
	}
	return nil
}

// sharedSalt is the prompt salt of a run with a start time: derived from
// the seed and the start, so every shard salts request k alike and a run
// at another start gets fresh prompts. Empty: a random salt per process.
func (p *Plan) sharedSalt() string {
	if p.salt != "" {
		return p.salt
	}
	if p.StartAt.IsZero() || !p.Salt {
		return ""
	}
	return fmt.Sprintf("start:%d:seed:%d", p.StartAt.UnixNano(), p.Seed)
}

// shardInfo is what the report says of the shard.
func (p *Plan) shardInfo() *report.ShardInfo {
	if !p.Shard.Sharded() {
		return nil
	}
	th, _ := json.Marshal(p.Thresholds) // plain data: it cannot fail
	return &report.ShardInfo{
		Index: p.Shard.Index, Count: p.Shard.Count, StartAt: p.StartAt.UTC(),
		Rates: append([]float64(nil), p.Rates...), Arrival: p.Arrival.String(),
		DurationS: p.Duration.Seconds(), WarmupS: p.Warmup.Seconds(), DrainS: p.DrainBound().Seconds(),
		API: string(p.API), Strict: p.Strict, Thresholds: th, LengthsAdvisory: p.LengthsAdvisory,
	}
}

// shardSchedule keeps the shard's share of a step's schedule: offsets k
// with k ≡ Index (mod Count), and a workload that builds slot j of the
// share as request firstIndex+Index+j·Count of the whole.
func (p *stepPlan) shardSchedule(sched []time.Duration, firstIndex int) ([]time.Duration, workload.Workload, int) {
	sh := p.Shard
	if !sh.Sharded() {
		return sched, p.Workload, firstIndex
	}
	var mine []time.Duration
	for k := sh.Index; k < len(sched); k += sh.Count {
		mine = append(mine, sched[k])
	}
	w := p.Workload
	return mine, workload.WorkloadFunc(func(j int) workload.Request {
		i := firstIndex + sh.Index + j*sh.Count
		req := w.Request(i)
		req.Index = i
		return req
	}), 0
}

// stepStart returns the plan's shared StepStart (zero when it has none)
// after waiting until shortly before it, so that the prefix-cache reset
// that follows comes after every shard's previous step.
func (p *stepPlan) stepStart(ctx context.Context) (time.Time, error) {
	if p.StepStart.IsZero() {
		return time.Time{}, nil
	}
	now := time.Now()
	// Now's monotonic reading carried to the shared instant: timers and
	// intervals stay on the monotonic clock.
	start := now.Add(p.StepStart.Sub(now))
	if wait := time.Until(start) - startLead; wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return time.Time{}, context.Cause(ctx)
		}
	}
	return start, nil
}

// startLead is how long before a shared start a step stops waiting: time
// for the prefix-cache reset and the dispatcher's helpers.
const startLead = 250 * time.Millisecond

// nextStepStart sets the step's shared start and advances the measurement's
// offset: step k starts at StartAt plus the previous steps' warm-up,
// duration and drain bound, so shards stay aligned without talking.
func (m *Measurement) nextStepStart(p *stepPlan) error {
	if m.plan.Sessions != nil && (m.plan.Shard.Sharded() || !m.plan.StartAt.IsZero()) {
		// A session's turns follow one another on one client, and its
		// step starts when it is ready (runSessionStep).
		return errors.New("a session replay cannot be sharded or started at a set time")
	}
	if m.plan.StartAt.IsZero() {
		return nil
	}
	p.StepStart = m.plan.StartAt.Add(m.startOffset)
	if m.startOffset == 0 {
		if err := checkStartAt(p.StepStart); err != nil {
			return err
		}
	}
	m.startOffset += p.Warmup + p.Duration + p.DrainBound()
	return nil
}

// prepareAhead builds the prompts of the step's requests from s.next ahead
// of the step (a shard only its own share).
func (m *Measurement) prepareAhead(ctx context.Context, n int) error {
	sh := m.plan.Shard
	if !sh.Sharded() {
		return m.generator.PrepareRange(ctx, m.next, m.next+n)
	}
	for i := m.next + sh.Index; i < m.next+n; i += sh.Count {
		if err := m.generator.PrepareRange(ctx, i, i+1); err != nil {
			return err
		}
	}
	return nil
}

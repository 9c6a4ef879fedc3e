package load

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/fixtures/formats"
	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// turnLogger wraps the client and notes every turn as the dispatcher saw
// it: its intended time, when the response ended, its lengths.
type turnLogger struct {
	c     *client.Client
	mu    sync.Mutex
	turns []loggedTurn
}

type loggedTurn struct {
	req           workload.Request
	intended, end time.Time
	out           client.Outcome
}

func (l *turnLogger) Prepare(req *workload.Request) { l.c.Prepare(req) }

func (l *turnLogger) Do(ctx context.Context, req workload.Request, out *client.Outcome) {
	l.c.Do(ctx, req, out)
	end := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	o := *out
	o.ITL = nil
	l.turns = append(l.turns, loggedTurn{req: req, intended: out.Intended, end: end, out: o})
}

// threads groups the logged turns by session and sub-agent, in turn order.
func (l *turnLogger) threads(t *testing.T) map[string][]loggedTurn {
	t.Helper()
	out := map[string][]loggedTurn{}
	for _, lt := range l.turns {
		k := lt.req.Session + "/" + lt.req.Agent
		out[k] = append(out[k], lt)
	}
	for k, ts := range out {
		for j, lt := range ts {
			require.Equal(t, j, lt.req.Turn, "thread %s: turns go out in order", k)
		}
	}
	return out
}

// smallWeka copies the three short WEKA sessions (3 turns each, one after a
// 51-minute pause) into a folder fixture.
func smallWeka(t *testing.T) (string, *fixtures.Fixture) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"trace_0103.json", "trace_0187.json", "trace_0504.json"} {
		b, err := os.ReadFile(filepath.Join("..", "fixtures", "formats", "testdata", "weka", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	fx, err := formats.Open(dir)
	require.NoError(t, err)
	require.Len(t, fx.Sessions, 3)
	return dir, fx
}

// sessionOnSim replays the small WEKA folder at 3 sessions/s for 1 s on
// the simulator with exact timing (20 ms TTFT, 1 ms ITL), think times at a
// hundredth and capped at 50 ms.
func sessionOnSim(t *testing.T, api workload.API) (*turnLogger, *fixtures.Fixture, *vllmsim.Server, func() (float64, *Measurement)) {
	dir, fx := smallWeka(t)
	srv := simtest.Start(t, vllmsim.Config{Model: "m", ProfileName: "instant", MaxModelLen: 65536,
		Faults: vllmsim.Faults{PacedTTFT: 20 * time.Millisecond, PacedITL: time.Millisecond}})
	cfg := DefaultPlan()
	cfg.Target, cfg.Fixture, cfg.API = URLTarget{URL: srv.URL}, plantest.MustFixture(t, dir), api
	cfg.Rates, cfg.Arrival, cfg.Duration, cfg.Warmup = []float64{3}, plantest.MustArrival(t, "constant"), time.Second, 0
	cfg.ThinkTimeScale, cfg.MaxThink = 0.01, 50*time.Millisecond
	cfg.SLOs = plantest.MustSLOs(t, "ttft.p50<=40ms", "error_rate<=0%")
	cfg.Thresholds.Off = []string{verdict.HazardClientSaturation, verdict.HazardTooFewSamples, verdict.HazardNotSteady}
	s, err := Open(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	log := &turnLogger{c: s.client}
	s.plan.Send.Doer = log
	run := func() (float64, *Measurement) {
		before := srv.Stats()
		_, err := s.Step(context.Background(), 3)
		require.NoError(t, err)
		after := srv.Stats()
		return float64(after.PrefixHitTokens-before.PrefixHitTokens) / float64(after.PrefixQueryTokens-before.PrefixQueryTokens), s
	}
	return log, fx, srv, run
}

func TestSessionReplayOnTheSimulator(t *testing.T) {
	log, fx, _, run := sessionOnSim(t, workload.APICompletions)
	hit, s := run()
	st := s.Report().Steps[0]

	roots := map[string]*fixtures.Session{}
	for _, r := range fx.Sessions {
		roots[r.ID] = r
	}
	threads := log.threads(t)
	require.Len(t, threads, 3, "three sessions started in the step, without sub-agents")
	tol := time.Millisecond
	if raceEnabled {
		tol = 3 * time.Millisecond
	}
	var firstMax, laterMax time.Duration
	var firstSends []time.Time
	for name, ts := range threads {
		root := roots[name[:strings.Index(name, "#")]]
		require.NotNil(t, root, name)
		require.Len(t, ts, len(root.Turns), "%s ran to its end", name)
		for k, lt := range ts {
			assert.Equal(t, root.Turns[k].Input, lt.out.PromptTokens, "%s turn %d: the prompt has exactly the trace's length", name, k)
			assert.Equal(t, root.Turns[k].Output, lt.out.CompletionTokens)
			ttft := lt.out.First.Sub(lt.intended)
			assert.GreaterOrEqual(t, ttft, 20*time.Millisecond, "%s turn %d: the server answers 20 ms after it got the turn", name, k)
			if k == 0 {
				firstMax = max(firstMax, ttft)
				firstSends = append(firstSends, lt.out.Sent)
				continue
			}
			laterMax = max(laterMax, ttft)
			think := min(root.Turns[k].Think/100, 50*time.Millisecond)
			assert.InDelta(t, think, lt.intended.Sub(ts[k-1].end), float64(tol),
				"%s turn %d: intended at the previous response's end plus %v", name, k, think)
		}
	}

	require.NotNil(t, st.Sessions)
	assert.Equal(t, 3, st.Sessions.Started)
	assert.Equal(t, 3, st.Sessions.Completed)
	assert.Zero(t, st.Sessions.TurnsNotSent)
	assert.Equal(t, 3, st.Turns.First.Sent)
	assert.Equal(t, 6, st.Turns.Later.Sent)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	assert.InEpsilon(t, ms(firstMax), st.Turns.First.TTFT.Max, 2e-3, "first turns' TTFT, from their intended times")
	assert.InEpsilon(t, ms(laterMax), st.Turns.Later.TTFT.Max, 2e-3, "later turns' TTFT, from their intended times")
	assert.Zero(t, st.LengthMismatches)
	assert.Equal(t, "sessions/s", st.RateUnit())
	inWindow := 0
	for _, at := range firstSends {
		if at.Before(st.StartedAt.Add(time.Duration(st.DurationS * float64(time.Second)))) {
			inWindow++
		}
	}
	assert.Equal(t, inWindow, st.Sessions.StartedInWindow)
	assert.InEpsilon(t, float64(inWindow)/st.DurationS, st.RateAchieved, 1e-9,
		"sessions whose first turn went out within the window, per second of it")

	want := fx.SessionStats().PrefixHitRate
	assert.Equal(t, want, st.Sessions.ExpectedPrefixHitRate, "warm_cache expects the in-session rate")
	assert.Greater(t, want, 0.5)
	assert.InDelta(t, want, hit, 0.03, "the simulator's prefix cache hits what the trace's hash ids say")
	assert.False(t, st.HasHazard(verdict.HazardWarmCache), "%+v", st.Hazards)
}

func TestSessionReplayOnTheSimulatorChat(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	log, fx, _, run := sessionOnSim(t, workload.APIChat)
	hit, s := run()
	st := s.Report().Steps[0]
	for name, ts := range log.threads(t) {
		for k, lt := range ts {
			assert.Equal(t, lt.req.InputTokens, lt.out.PromptTokens, "%s turn %d: exact through /tokenize", name, k)
			if k > 0 {
				prev := ts[k-1].req.Messages
				if len(lt.req.Messages) > len(prev) {
					assert.Equal(t, prev, lt.req.Messages[:len(prev)], "%s turn %d resends the conversation", name, k)
				}
			}
		}
	}
	assert.Zero(t, st.LengthMismatches)
	assert.InDelta(t, fx.SessionStats().PrefixHitRate, hit, 0.05, "the rendered conversations share their prefix")
}

func TestSessionReplayRefusesBadThinkSettings(t *testing.T) {
	for _, set := range []func(*Plan){
		func(c *Plan) { c.ThinkTimeScale = 0 },
		func(c *Plan) { c.ThinkTimeScale = -1 },
		func(c *Plan) { c.MaxThink = -time.Second },
	} {
		cfg := DefaultPlan()
		cfg.Target, cfg.Fixture = simTarget(vllmsim.Config{}), plantest.MustFixture(t, "fixed:8:2")
		set(&cfg)
		_, err := Open(context.Background(), cfg)
		assert.ErrorContains(t, err, "think time", "%+v %v", cfg.ThinkTimeScale, cfg.MaxThink)
	}
	p := handPlan(&turnLogger{}, nil, []float64{1}, time.Second, nil)
	p.Sessions = &SessionReplay{Source: nil}
	_, err := runPlan(context.Background(), p)
	assert.ErrorContains(t, err, "no Source")
	// A sharded session replay is refused by Open (TestShardConfigIsChecked).
}

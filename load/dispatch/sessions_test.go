package dispatch

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// treeSource replays the same tree for every arrival; a turn's request
// names its session, sub-agent and position.
type treeSource struct{ root *fixtures.Session }

func (s treeSource) Session(int) *fixtures.Session { return s.root }

func (s treeSource) TurnRequest(i int, fs *fixtures.Session, t int) workload.Request {
	agent := fs.ID
	if fs == s.root {
		agent = ""
	}
	return workload.Request{Index: i, Agent: agent, Turn: t, InputTokens: fs.Turns[t].Input, OutputTokens: 1}
}

// turnLog keeps every recorded turn with the time its response ended.
type turnLog struct {
	mu       sync.Mutex
	turns    []loggedTurn
	sessions []endedSession
	started  int
}

type loggedTurn struct {
	out client.Outcome
	at  time.Time
}

type endedSession struct {
	intended, firstSent time.Time
	unsent              int
	cut                 bool
}

func (l *turnLog) Started(time.Time) { l.mu.Lock(); l.started++; l.mu.Unlock() }
func (l *turnLog) Dropped(time.Time) {}
func (l *turnLog) Record(o *client.Outcome, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.turns = append(l.turns, loggedTurn{*o, at})
}
func (l *turnLog) SessionEnded(intended, firstSent time.Time, unsent int, cut bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sessions = append(l.sessions, endedSession{intended, firstSent, unsent, cut})
}

// find is the logged turn of (session index, agent, position).
func (l *turnLog) find(t *testing.T, i int, agent string, turn int) loggedTurn {
	t.Helper()
	for _, lt := range l.turns {
		r := lt.out.Request
		if r.Index == i && r.Agent == agent && r.Turn == turn {
			return lt
		}
	}
	t.Fatalf("turn %d of session %d agent %q not recorded", turn, i, agent)
	return loggedTurn{}
}

const ms = time.Millisecond

// agentTree: a parent whose turn 1 waits for its sub-agent, which starts
// 5 ms after the parent and sends two turns.
func agentTree() *fixtures.Session {
	sub := &fixtures.Session{ID: "sub", StartOffset: 5 * ms, Turns: []fixtures.Turn{
		{Input: 1, Output: 1}, {At: 20 * ms, Think: 8 * ms, Input: 2, Output: 1}}}
	return &fixtures.Session{ID: "main", Turns: []fixtures.Turn{
		{Input: 1, Output: 1},
		{At: 60 * ms, Think: 40 * ms, Input: 2, Output: 1, WaitFor: []string{"sub"}},
		{At: 90 * ms, Think: 30 * ms, Input: 3, Output: 1},
		{At: 200 * ms, Think: 100 * ms, Input: 4, Output: 1},
	}, Children: []*fixtures.Session{sub}}
}

func TestSessionTurnsWaitForResponsesThinkTimesAndSubAgents(t *testing.T) {
	root := agentTree()
	log := &turnLog{}
	start := time.Now().Add(10 * ms)
	d := SessionLoop{Schedule: []time.Duration{0}, Start: start, Source: treeSource{root},
		Sink: log, ThinkScale: 0.5, MaxThink: 25 * ms, Sender: Sender{Doer: sleepDoer(10 * ms)}}
	res, err := d.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, SessionLoopResult{Scheduled: 1, Started: 1, Sent: 6, Drained: true, End: res.End}, res)

	m0, m1, m2, m3 := log.find(t, 0, "", 0), log.find(t, 0, "", 1), log.find(t, 0, "", 2), log.find(t, 0, "", 3)
	s0, s1 := log.find(t, 0, "sub", 0), log.find(t, 0, "sub", 1)
	assert.Equal(t, start, m0.out.Intended, "the session starts at its slot")
	assert.Equal(t, start.Add(5*ms), s0.out.Intended, "the sub-agent starts at its offset from its parent's start")
	assert.Equal(t, s0.at.Add(4*ms), s1.out.Intended, "sub-agent turn 1: its turn 0's end + 8 ms × 0.5")
	require.True(t, s1.at.After(m0.at), "the sub-agent ends after the parent's turn 0 (5+10+4+10 > 10 ms)")
	assert.Equal(t, s1.at.Add(20*ms), m1.out.Intended, "turn 1 waits for the sub-agent it waits for, then thinks 40 ms × 0.5")
	assert.Equal(t, m1.at.Add(15*ms), m2.out.Intended, "turn 2: turn 1's end + 30 ms × 0.5")
	assert.Equal(t, m2.at.Add(25*ms), m3.out.Intended, "turn 3: 100 ms × 0.5, capped at 25 ms")
	for _, lt := range log.turns {
		// Sent on time, bar the machine's noise (the test machine is shared).
		lag := lt.out.Sent.Sub(lt.out.Intended)
		assert.True(t, lag >= 0 && lag < 20*ms, "turn %+v sent %v after its intended time", lt.out.Request, lag)
	}
	require.Len(t, log.sessions, 1)
	assert.Equal(t, endedSession{start, m0.out.Sent, 0, false}, log.sessions[0])
}

// spawnTree: a parent whose first response was recorded as ending at 50 ms
// and starting a sub-agent 10 ms later (at 60 ms); its turn 1 waits for it.
func spawnTree() *fixtures.Session {
	sub := &fixtures.Session{ID: "sub", StartOffset: 60 * ms, Turns: []fixtures.Turn{{Input: 1, Output: 1}}}
	return &fixtures.Session{ID: "main", Turns: []fixtures.Turn{
		{End: 50 * ms, Input: 1, Output: 1},
		{At: 120 * ms, Think: 10 * ms, Input: 2, Output: 1, WaitFor: []string{"sub"}},
	}, Children: []*fixtures.Session{sub}}
}

// A sub-agent starts after the replayed response that started it, by the
// recorded wait, whatever the server's speed: never before that response
// ended (a slow server), never late for want of the old server's time (a
// fast one).
func TestSubAgentsStartAfterTheResponseThatStartedThem(t *testing.T) {
	for _, c := range []struct {
		name    string
		service time.Duration
		scale   float64
		gap     time.Duration
	}{
		{"fast server", 5 * ms, 1, 10 * ms},
		{"slow server", 90 * ms, 1, 10 * ms},
		{"think scaled", 5 * ms, 0.5, 5 * ms},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := &turnLog{}
			d := SessionLoop{Schedule: []time.Duration{0}, Source: treeSource{spawnTree()},
				Sink: log, ThinkScale: c.scale, Sender: Sender{Doer: sleepDoer(c.service)}}
			_, err := d.Run(context.Background())
			require.NoError(t, err)
			m0, s0 := log.find(t, 0, "", 0), log.find(t, 0, "sub", 0)
			assert.Equal(t, m0.at.Add(c.gap), s0.out.Intended, "the sub-agent starts %v after turn 0's response ended", c.gap)
		})
	}
}

// A parent cut before the response that starts a sub-agent never starts it:
// the sub-agent's turns are unsent.
func TestACutParentLeavesItsSubAgentUnsent(t *testing.T) {
	hang := DoerFunc(func(ctx context.Context, req workload.Request, out *client.Outcome) {
		out.Sent = time.Now()
		<-ctx.Done()
		out.Class, out.Err = client.ClassCanceled, ctx.Err()
	})
	log := &turnLog{}
	d := SessionLoop{Schedule: []time.Duration{0}, Source: treeSource{spawnTree()}, Sink: log, Sender: Sender{Doer: hang, DrainTimeout: 30 * ms}}
	res, err := d.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 2, res.Unsent, "the parent's turn 1 and the sub-agent's turn")
	require.Len(t, log.sessions, 1)
	assert.Equal(t, endedSession{log.sessions[0].intended, log.sessions[0].firstSent, 2, true}, log.sessions[0])
	assert.Len(t, log.turns, 1, "only turn 0 was sent")
}

func TestSessionGapThinkTimesCountFromTheSend(t *testing.T) {
	root := &fixtures.Session{ID: "s", Turns: []fixtures.Turn{
		{Input: 1, Output: 1}, {At: 50 * ms, Think: 50 * ms, Input: 1, Output: 1}, {At: 55 * ms, Think: 5 * ms, Input: 1, Output: 1}}}
	log := &turnLog{}
	d := SessionLoop{Schedule: []time.Duration{0}, Source: treeSource{root}, Sink: log, ThinkIsGap: true, Sender: Sender{Doer: sleepDoer(20 * ms)}}
	_, err := d.Run(context.Background())
	require.NoError(t, err)
	t0, t1, t2 := log.find(t, 0, "", 0), log.find(t, 0, "", 1), log.find(t, 0, "", 2)
	assert.Equal(t, t0.out.Intended.Add(50*ms), t1.out.Intended, "a 50 ms gap from turn 0's intended send")
	assert.Equal(t, t1.at, t2.out.Intended, "a 5 ms gap is shorter than the response: sent at its end")
}

func TestSessionsStartOpenLoopAndWarmUpIsNotRecorded(t *testing.T) {
	root := &fixtures.Session{ID: "s", Turns: []fixtures.Turn{{Input: 1, Output: 1}, {At: 200 * ms, Input: 1, Output: 1}}}
	log := &turnLog{}
	start := time.Now().Add(10 * ms)
	d := SessionLoop{Schedule: []time.Duration{0, 10 * ms, 20 * ms}, Start: start, FirstIndex: 7, MeasureFrom: 10 * ms,
		Source: treeSource{root}, Sink: log, Sender: Sender{Doer: sleepDoer(100 * ms)}}
	res, err := d.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 6, res.Sent, "the warm-up session loads the server too")
	assert.Len(t, log.turns, 4, "but only the two measured sessions are recorded")
	assert.Equal(t, 4, log.started)
	assert.Equal(t, start.Add(20*ms), log.find(t, 9, "", 0).out.Intended,
		"session 9 starts at its slot, while the sessions before it still wait for their first response")
	assert.Len(t, log.sessions, 2)
}

// unmeasuredLog is a turnLog that also keeps what per-request records
// keep: the warm-up sessions' turns, and which requests were dropped.
type unmeasuredLog struct {
	*turnLog
	unmeasured, unmeasuredDrops, drops []workload.Request
}

func (l *unmeasuredLog) Unmeasured(o *client.Outcome, _ time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unmeasured = append(l.unmeasured, o.Request)
}

func (l *unmeasuredLog) UnmeasuredDrop(req workload.Request, _ time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unmeasuredDrops = append(l.unmeasuredDrops, req)
}

func (l *unmeasuredLog) DroppedRequest(req workload.Request, _ time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.drops = append(l.drops, req)
}

// The turns of sessions started in the warm-up load the server unmeasured;
// a recorder that keeps records hears of them apart, sent or dropped, and
// of the measured drops with their requests.
func TestWarmUpSessionTurnsReachRecordsUnmeasured(t *testing.T) {
	root := &fixtures.Session{ID: "s", Turns: []fixtures.Turn{{Input: 1, Output: 1}, {At: 200 * ms, Input: 1, Output: 1}}}
	log := &unmeasuredLog{turnLog: &turnLog{}}
	// Session 7 holds the one slot from 0 to 100 ms, then sends its turn 1;
	// sessions 8 (warm-up, at 10 ms) and 9 (measured, at 60 ms) find the
	// slot taken for both their turns.
	d := SessionLoop{Schedule: []time.Duration{0, 10 * ms, 60 * ms}, FirstIndex: 7, MeasureFrom: 60 * ms,
		Source: treeSource{root}, Sink: log, Sender: Sender{MaxInFlight: 1, Doer: sleepDoer(100 * ms)}}
	res, err := d.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 2, res.Sent)
	assert.Equal(t, 4, res.Dropped)
	at := func(rs []workload.Request) (out [][2]int) {
		for _, r := range rs {
			out = append(out, [2]int{r.Index, r.Turn})
		}
		return out
	}
	assert.Equal(t, [][2]int{{7, 0}, {7, 1}}, at(log.unmeasured), "the warm-up session's turns, unmeasured")
	assert.Equal(t, [][2]int{{8, 0}, {8, 1}}, at(log.unmeasuredDrops), "the other warm-up session's drops")
	assert.Equal(t, [][2]int{{9, 0}, {9, 1}}, at(log.drops), "the measured session's drops, with their requests")
	assert.Empty(t, log.turns, "no turn was measured")
}

func TestSessionDrainBoundCutsSessions(t *testing.T) {
	root := &fixtures.Session{ID: "s", Turns: []fixtures.Turn{
		{Input: 1, Output: 1}, {At: 1e9, Input: 2, Output: 1}, {At: 2e9, Input: 3, Output: 1}}}
	hang := DoerFunc(func(ctx context.Context, req workload.Request, out *client.Outcome) {
		if req.Turn == 1 { // never answers: the drain bound has to end it
			out.Sent = time.Now()
			<-ctx.Done()
			out.Class, out.Err = client.ClassCanceled, ctx.Err()
			return
		}
		sleepDoer(ms)(ctx, req, out)
	})
	log := &turnLog{}
	start := time.Now()
	d := SessionLoop{Schedule: []time.Duration{0}, Start: start, Source: treeSource{root}, Sink: log, Sender: Sender{Doer: hang, DrainTimeout: 80 * ms}}
	res, err := d.Run(context.Background())
	require.NoError(t, err)
	assert.False(t, res.Drained)
	assert.Equal(t, 1, res.Unsent, "turn 2 was never due")
	t1 := log.find(t, 0, "", 1)
	assert.Equal(t, client.ClassUnfinished, t1.out.Class)
	assert.InDelta(t, 80, float64(t1.at.Sub(start))/float64(ms), 10, "it ended at the bound")
	require.Len(t, log.sessions, 1)
	assert.True(t, log.sessions[0].cut)
	assert.Equal(t, 1, log.sessions[0].unsent)
}

func TestSessionsRefuseBadThinkSettings(t *testing.T) {
	root := &fixtures.Session{ID: "s", Turns: []fixtures.Turn{{Input: 1, Output: 1}}}
	for _, d := range []SessionLoop{{ThinkScale: -1}, {MaxThink: -ms}, {}} {
		d.Source, d.Sink = treeSource{root}, &turnLog{}
		if d.ThinkScale == 0 && d.MaxThink == 0 {
			d.Source = nil
		}
		d.Doer = sleepDoer(ms)
		_, err := d.Run(context.Background())
		assert.Error(t, err, "%+v", d)
	}
}

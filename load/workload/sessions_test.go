package workload

import (
	"context"
	"strings"
	"testing"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/load/vllmapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var _ ChatTokenizer = (*vllmapi.HTTPTokenizer)(nil)

// growthFixture has one conversation without hash ids: turn 1 extends turn
// 0's context (180 ≥ 100 + 50), turn 2 is shorter than that context (a
// trimmed one) and starts a new one. Its sub-agent starts after turn 0.
func growthFixture(t testing.TB) *fixtures.Fixture {
	t.Helper()
	sub := &fixtures.Session{ID: "sub", StartOffset: 1e9, Duration: 2e9, Turns: []fixtures.Turn{
		{At: 0, Input: 40, Output: 5}, {At: 1e9, Think: 1e8, Input: 60, Output: 5}}}
	root := &fixtures.Session{ID: "conv", Turns: []fixtures.Turn{
		{At: 0, Input: 100, Output: 50},
		{At: 4e9, Think: 2e9, Input: 180, Output: 30, WaitFor: []string{"sub"}},
		{At: 6e9, Think: 1e9, Input: 90, Output: 20},
	}, Children: []*fixtures.Session{sub}}
	fx, err := fixtures.FromSessions("growth", fixtures.Provenance{}, 0, []*fixtures.Session{root})
	require.NoError(t, err)
	return fx
}

// hashedFixture has blocks of 4 tokens: turn 1 resends turn 0's two full
// blocks (1, 2) but not its partial third (3); the sub-agent shares block 1.
func hashedFixture(t testing.TB) *fixtures.Fixture {
	t.Helper()
	sub := &fixtures.Session{ID: "sub", StartOffset: 1e9, Turns: []fixtures.Turn{
		{Input: 8, Output: 2, HashIDs: []uint64{1, 9}}}}
	root := &fixtures.Session{ID: "agent", Turns: []fixtures.Turn{
		{Input: 10, Output: 3, HashIDs: []uint64{1, 2, 3}},
		{At: 2e9, Think: 1e9, Input: 16, Output: 3, HashIDs: []uint64{1, 2, 5, 6}},
	}, Children: []*fixtures.Session{sub}}
	fx, err := fixtures.FromSessions("hashed", fixtures.Provenance{}, 4, []*fixtures.Session{root})
	require.NoError(t, err)
	return fx
}

func mustSessions(t testing.TB, fx *fixtures.Fixture, opts Options) *Sessions {
	t.Helper()
	g, err := New(fx, opts)
	require.NoError(t, err)
	s, err := g.Sessions()
	require.NoError(t, err)
	return s
}

func TestSessionPromptsGrowByTheirHistory(t *testing.T) {
	s := mustSessions(t, growthFixture(t), Options{Salt: "run", InOrder: true})
	root := s.Session(0)
	turns := make([][]int, 3)
	for k := range turns {
		req := s.TurnRequest(0, root, k)
		require.Len(t, req.PromptIDs, root.Turns[k].Input, "turn %d has exactly the trace's input", k)
		assert.Equal(t, root.Turns[k].Input, req.InputTokens)
		assert.Equal(t, root.Turns[k].Output, req.OutputTokens)
		assert.Equal(t, k, req.Turn)
		assert.Equal(t, "conv#0", req.Session)
		assert.Empty(t, req.Agent)
		turns[k] = req.PromptIDs
	}
	assert.Equal(t, turns[0], turns[1][:100], "turn 1 resends turn 0's prompt, then the output stand-in and new tokens")
	assert.NotEqual(t, turns[1][:90], turns[2], "turn 2 is shorter than turn 1's context: a new one")
	assert.Equal(t, turns[1], s.TurnRequest(0, root, 1).PromptIDs, "deterministic")

	sub := root.Children[0]
	a, b := s.TurnRequest(0, sub, 0), s.TurnRequest(0, sub, 1)
	assert.Equal(t, "sub", a.Agent)
	assert.Equal(t, a.PromptIDs, b.PromptIDs[:40], "the sub-agent grows its own context")
	assert.NotEqual(t, turns[0][:40], a.PromptIDs, "and not its parent's")

	other := s.TurnRequest(1, s.Session(1), 1).PromptIDs
	assert.Zero(t, sharedPrefix(turns[1], other), "arrival 1 replays the same session with other tokens")

	// Expected: turn 1 finds turn 0's 100 tokens, the sub-agent's turn 1
	// its turn 0's 40; 140 of 100+180+90+40+60 prompt tokens.
	assert.InDelta(t, 140.0/470.0, s.ExpectedPrefixHitRate(), 1e-12)
}

func TestSessionPromptsFollowHashIDs(t *testing.T) {
	fx := hashedFixture(t)
	s := mustSessions(t, fx, Options{Salt: "run", InOrder: true})
	root := s.Session(0)
	t0, t1 := s.TurnRequest(0, root, 0).PromptIDs, s.TurnRequest(0, root, 1).PromptIDs
	require.Len(t, t0, 10)
	require.Len(t, t1, 16)
	assert.Equal(t, t0[:8], t1[:8], "blocks 1 and 2 are the same tokens in both turns")
	assert.NotEqual(t, t0[8:10], t1[8:10], "block 3 (partial in turn 0) is not block 5")
	sub := s.TurnRequest(0, root.Children[0], 0).PromptIDs
	assert.Equal(t, t0[:4], sub[:4], "the sub-agent shares block 1 with its parent")
	assert.NotEqual(t, t0[4:8], sub[4:8])
	assert.Zero(t, sharedPrefix(t0, s.TurnRequest(1, s.Session(1), 0).PromptIDs), "another session shares nothing")
	assert.Equal(t, fx.SessionStats().PrefixHitRate, s.ExpectedPrefixHitRate())
}

func TestSessionSaltKeepsRunsApart(t *testing.T) {
	fx := hashedFixture(t)
	turn := func(opts Options) []int {
		s := mustSessions(t, fx, opts)
		return s.TurnRequest(0, s.Session(0), 1).PromptIDs
	}
	assert.Zero(t, sharedPrefix(turn(Options{InOrder: true}), turn(Options{InOrder: true})), "random salts")
	assert.Zero(t, sharedPrefix(turn(Options{Salt: "a"}), turn(Options{Salt: "a", Seed: 1})), "another seed")
	assert.Equal(t, turn(Options{DisableSalt: true}), turn(Options{DisableSalt: true}), "unsalted re-runs repeat")
}

func TestSessionDrawsCoverEveryRoot(t *testing.T) {
	a := &fixtures.Session{ID: "a", Turns: []fixtures.Turn{{Input: 5, Output: 1}}}
	b := &fixtures.Session{ID: "b", Turns: []fixtures.Turn{{Input: 5, Output: 1}}}
	c := &fixtures.Session{ID: "c", Turns: []fixtures.Turn{{Input: 5, Output: 1}}}
	fx, err := fixtures.FromSessions("three", fixtures.Provenance{}, 0, []*fixtures.Session{a, b, c})
	require.NoError(t, err)
	s := mustSessions(t, fx, Options{Seed: 3})
	seen := map[string]int{}
	for i := range 6 {
		seen[s.Session(i).ID]++
	}
	assert.Equal(t, map[string]int{"a": 2, "b": 2, "c": 2}, seen, "each epoch of draws holds every session once")
	in := mustSessions(t, fx, Options{InOrder: true})
	assert.Equal(t, "b", in.Session(4).ID, "a trace replay takes them in order")
}

// simChat counts tokens as the simulator's chat template does: words, plus
// 4 per message, plus 2.
type simChat struct{ calls int }

func (c *simChat) CountTokens(_ context.Context, text string) (int, error) {
	c.calls++
	return len(strings.Fields(text)) + 6, nil
}

func (c *simChat) CountChat(_ context.Context, msgs []Message) (int, error) {
	c.calls++
	n := 2
	for _, m := range msgs {
		n += len(strings.Fields(m.Content)) + 4
	}
	return n, nil
}

func TestSessionChatResendsTheConversation(t *testing.T) {
	tok := &simChat{}
	s := mustSessions(t, growthFixture(t), Options{API: APIChat, Salt: "run", InOrder: true, Tokenizer: tok})
	require.NoError(t, s.PrepareSessions(context.Background(), 0, 1))
	calls := tok.calls
	root := s.Session(0)
	var prev []Message
	for k, turn := range root.Turns {
		req := s.TurnRequest(0, root, k)
		n, _ := tok.CountChat(context.Background(), req.Messages)
		assert.Equal(t, turn.Input, n, "turn %d is exact, template included", k)
		for j, m := range req.Messages {
			want := "user"
			if j%2 == 1 {
				want = "assistant"
			}
			assert.Equal(t, want, m.Role, "turn %d message %d", k, j)
		}
		switch k {
		case 1:
			require.Len(t, req.Messages, 3)
			assert.Equal(t, prev, req.Messages[:1], "turn 1 resends what turn 0 sent")
			assert.Len(t, strings.Fields(req.Messages[1].Content), root.Turns[0].Output, "the output stand-in")
		case 2:
			assert.Len(t, req.Messages, 1, "a new context")
		}
		prev = req.Messages
	}
	assert.Equal(t, calls+len(root.Turns), tok.calls, "prepared turns are not measured again")
	st := s.g.Calibration()
	assert.Equal(t, st.Prompts, st.Exact, "%+v", st)
}

func TestSessionChatWithoutTokenizerStillAlternates(t *testing.T) {
	s := mustSessions(t, growthFixture(t), Options{API: APIChat, Salt: "run", InOrder: true})
	req := s.TurnRequest(0, s.Session(0), 1)
	require.Len(t, req.Messages, 3)
	assert.Equal(t, []string{"user", "assistant", "user"}, []string{req.Messages[0].Role, req.Messages[1].Role, req.Messages[2].Role})
	assert.Empty(t, req.Prompt)
}

func TestGeneratorWithoutSessions(t *testing.T) {
	g, err := New(mustOpen(t, "fixed:10:10"), Options{})
	require.NoError(t, err)
	_, err = g.Sessions()
	assert.ErrorIs(t, err, ErrNoSessions)
}

func sharedPrefix(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

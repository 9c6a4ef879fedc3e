package load

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/vllmapi"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chatServer answers /v1/chat/completions 15 ms after a request arrives,
// then one token every 2 ms, and counts prompt tokens as the simulator's
// template does (words, 4 per message, 2 more), on /tokenize too. It keeps
// every conversation it was sent.
type chatServer struct {
	mu     sync.Mutex
	bodies [][]workload.Message
}

type chatBody struct {
	Messages  []workload.Message `json:"messages"`
	MaxTokens int                `json:"max_tokens"`
}

func promptTokens(msgs []workload.Message) int {
	n := 2
	for _, m := range msgs {
		n += len(strings.Fields(m.Content)) + 4
	}
	return n
}

func (c *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	var b chatBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.URL.Path == "/tokenize" {
		fmt.Fprintf(w, `{"count":%d}`, promptTokens(b.Messages))
		return
	}
	c.mu.Lock()
	c.bodies = append(c.bodies, b.Messages)
	c.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	for k := range b.MaxTokens {
		time.Sleep(time.Until(arrived.Add(15*time.Millisecond + time.Duration(k)*2*time.Millisecond)))
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" w\"}}]}\n\n")
		f.Flush()
	}
	fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":%d}}\n\ndata: [DONE]\n\n",
		promptTokens(b.Messages), b.MaxTokens)
}

func TestSessionReplayOverHTTPSendsTheConversation(t *testing.T) {
	fx := conversationFixture(t)
	cs := &chatServer{}
	srv := httptest.NewServer(cs)
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{BaseURL: srv.URL, API: workload.APIChat, Model: "m"})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	g, err := workload.New(fx, workload.Options{API: workload.APIChat, InOrder: true,
		Tokenizer: vllmapi.NewHTTPTokenizer(srv.URL, "m", srv.Client())})
	require.NoError(t, err)
	ss, err := g.Sessions()
	require.NoError(t, err)
	require.NoError(t, ss.PrepareSessions(context.Background(), 0, 2))
	log := &turnLogger{c: c}
	p := handPlan(log, nil, []float64{4}, 500*time.Millisecond, plantest.MustSLOs(t, "ttft.p50<=1s"))
	p.Sessions, p.DrainTimeout = &SessionReplay{Source: ss}, 5*time.Second
	rep, err := runPlan(context.Background(), p)
	require.NoError(t, err)
	st := rep.Steps[0]
	assert.Equal(t, 2, st.Sessions.Completed, "two sessions start in 0.5 s at 4 sessions/s")
	assert.Equal(t, 8, st.Requests.Completed, "3 turns and a sub-agent's one, twice")
	assert.Zero(t, st.LengthMismatches, "every conversation has exactly its turn's tokens")

	tol := time.Millisecond
	if raceEnabled {
		tol = 3 * time.Millisecond
	}
	root := fx.Sessions[0]
	threads := log.threads(t)
	for name, ts := range threads {
		if strings.HasSuffix(name, "/helper") {
			continue
		}
		main := ts
		require.Len(t, main, 3, name)
		sub := threads[strings.TrimSuffix(name, "/")+"/helper"][0]
		assert.Equal(t, main[0].intended.Add(10*time.Millisecond), sub.intended, "the sub-agent starts 10 ms after its parent")
		waited := main[0].end
		if sub.end.After(waited) {
			waited = sub.end
		}
		assert.WithinDuration(t, waited.Add(30*time.Millisecond), main[1].intended, tol,
			"turn 1 waits for the sub-agent, then thinks 30 ms")
		assert.WithinDuration(t, main[1].end.Add(20*time.Millisecond), main[2].intended, tol, "turn 2 thinks 20 ms")
		for k, lt := range ts {
			assert.GreaterOrEqual(t, lt.out.First.Sub(lt.intended), 15*time.Millisecond, "%s turn %d", name, k)
			msgs := lt.req.Messages
			require.Len(t, msgs, 2*k+1, "%s turn %d: the whole conversation so far", name, k)
			if k > 0 {
				assert.Equal(t, ts[k-1].req.Messages, msgs[:2*k-1], "%s turn %d resends turn %d's messages", name, k, k-1)
				assert.Len(t, strings.Fields(msgs[2*k-1].Content), root.Turns[k-1].Output, "the output stand-in")
			}
			assert.Equal(t, root.Turns[k].Input, promptTokens(msgs))
		}
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	assert.Len(t, cs.bodies, 8, "the server got the turns as the client built them")
}

// conversationFixture is one conversation of three turns that grow (no
// hash ids), with a sub-agent started 10 ms in that turn 1 waits for.
func conversationFixture(t *testing.T) *fixtures.Fixture {
	t.Helper()
	ms := time.Millisecond
	sub := &fixtures.Session{ID: "helper", StartOffset: 10 * ms, Turns: []fixtures.Turn{{Input: 50, Output: 3}}}
	root := &fixtures.Session{ID: "chat", Turns: []fixtures.Turn{
		{Input: 60, Output: 4},
		{At: 100 * ms, Think: 30 * ms, Input: 120, Output: 5, WaitFor: []string{"helper"}},
		{At: 200 * ms, Think: 20 * ms, Input: 200, Output: 3},
	}, Children: []*fixtures.Session{sub}}
	fx, err := fixtures.FromSessions("chat", fixtures.Provenance{}, 0, []*fixtures.Session{root})
	require.NoError(t, err)
	return fx
}

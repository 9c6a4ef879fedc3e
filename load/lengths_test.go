package load

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
)

// halfWorkServer speaks OpenAI completions (SSE when asked to stream) and
// gives half the asked output tokens, ignore_eos and min_tokens
// notwithstanding, as a server that stops at its end of text does; up to
// fullUpTo tokens it gives them all (a model that rarely ends that soon).
// It has no /tokenize and no /metrics.
func halfWorkServer(t *testing.T, fullUpTo int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
			fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model","max_model_len":4096}]}`)
			return
		}
		var body struct {
			Prompt    any  `json:"prompt"`
			MaxTokens int  `json:"max_tokens"`
			Stream    bool `json:"stream"`
		}
		if r.URL.Path != "/v1/completions" || json.NewDecoder(r.Body).Decode(&body) != nil {
			http.NotFound(w, r)
			return
		}
		prompt := 0
		switch p := body.Prompt.(type) {
		case []any:
			prompt = len(p)
		case string:
			prompt = len(strings.Fields(p))
		}
		out := body.MaxTokens
		if out > fullUpTo {
			out = max(out/2, 1)
		}
		usage := fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}`, prompt, out, prompt+out)
		if !body.Stream {
			fmt.Fprintf(w, `{"object":"text_completion","choices":[{"index":0,"text":"%s","finish_reason":"stop"}],"usage":%s}`, strings.Repeat(" w", out), usage)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		for k := range out {
			reason := "null"
			if k == out-1 {
				reason = `"stop"`
			}
			fmt.Fprintf(w, "data: {\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\" w\",\"finish_reason\":%s}]}\n\n", reason)
			f.Flush()
		}
		fmt.Fprintf(w, "data: {\"object\":\"text_completion\",\"choices\":[],\"usage\":%s}\n\ndata: [DONE]\n\n", usage)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func halfWorkPlan(t *testing.T, url string) Plan {
	p := DefaultPlan()
	p.Target = URLTarget{URL: url, Model: "m"}
	p.Fixture, p.Rates, p.Arrival = plantest.MustFixture(t, "fixed:16:64"), []float64{50}, plantest.MustArrival(t, "constant")
	p.Duration, p.Warmup = time.Second, 0
	p.SLOs, p.Thresholds = plantest.MustSLOs(t, "ttft.p50<=5s"), quietThresholds()
	return p
}

// A server that gives half the asked output, and shows it to the probe
// before the first step, is refused before the load with the option that
// declares it: every step would run a lighter workload than asked.
func TestAServerThatEndsEarlyInTheProbeIsRefused(t *testing.T) {
	rep, err := Measure(context.Background(), halfWorkPlan(t, halfWorkServer(t, 0)))
	require.Error(t, err)
	assert.Nil(t, rep)
	assert.Contains(t, err.Error(), "does not honour ignore_eos: asked for 16 output tokens with ignore_eos and min_tokens, it gave 8")
	assert.Contains(t, err.Error(), "--lengths-advisory")
}

// The probe holds a server that honours ignore_eos (here: one whose
// outputs only end early past 16 tokens) to the lengths, /tokenize or
// not: its step, on outputs half as long as asked, did less work than the
// workload's and is invalid, never a plain pass.
func TestAStepOnHalfTheOutputIsInvalidWithoutTheDeclaration(t *testing.T) {
	rep, err := Measure(context.Background(), halfWorkPlan(t, halfWorkServer(t, eosProbeTokens)))
	require.NoError(t, err)
	s := rep.Steps[0]
	assert.Equal(t, report.VerdictInvalid, s.Verdict, "hazards %+v, notes %+v", s.Hazards, s.Notes)
	require.True(t, s.HasHazard(verdict.HazardLengthMismatch), "%+v", s.Hazards)
	assert.Equal(t, s.Requests.Completed, s.LengthMismatches)
	assert.Contains(t, s.Hazards[0].Fix, "--lengths-advisory")
	assert.False(t, slices.ContainsFunc(s.NotJudged, func(n report.NotJudged) bool { return n.Check == verdict.CheckOutputLength }),
		"a server is held to the lengths unless declared otherwise: %+v", s.NotJudged)
}

// Declared advisory, the same server's outputs are judged as given: the
// step passes, and says the workload was lighter than asked, by how much.
func TestADeclaredServerPassesOnALighterWorkloadAndSaysSo(t *testing.T) {
	p := halfWorkPlan(t, halfWorkServer(t, 0))
	p.LengthsAdvisory = true
	rep, err := Measure(context.Background(), p)
	require.NoError(t, err)
	s := rep.Steps[0]
	require.Equal(t, report.VerdictPass, s.Verdict, "hazards %+v", s.Hazards)
	assert.Zero(t, s.LengthMismatches)
	assert.Equal(t, s.Requests.Completed, s.LengthEndedEarly)
	require.Len(t, s.Notes, 1)
	assert.Equal(t, verdict.HazardLengthMismatch, s.Notes[0].Kind)
	assert.Contains(t, s.Notes[0].Message, fmt.Sprintf("the workload was lighter than asked: %d of %d requests (100.0%%) ended", s.Requests.Completed, s.Requests.Completed))
	assert.Contains(t, s.Notes[0].Message, "32.0 output tokens a request given for 64.0 asked")
	assert.True(t, slices.ContainsFunc(s.NotJudged, func(n report.NotJudged) bool { return n.Check == verdict.CheckOutputLength }), "%+v", s.NotJudged)
	notes := strings.Join(rep.Target.Notes, "\n")
	assert.Contains(t, notes, "declared advisory")
	assert.Contains(t, notes, "the probe saw it give 8 of 16 output tokens")
}

// Shards of a run whose lengths were declared advisory are merged and
// judged alike.
func TestMergeJudgesDeclaredLengthsAlike(t *testing.T) {
	r := &report.Report{Shard: &report.ShardInfo{Count: 2, LengthsAdvisory: true}}
	c, err := verdict.ShardCriteria(r)
	require.NoError(t, err)
	assert.True(t, c.LengthsAdvisory)
	p := halfWorkPlan(t, "http://127.0.0.1:1")
	p.LengthsAdvisory, p.Shard = true, Shard{Index: 0, Count: 2}
	assert.True(t, p.shardInfo().LengthsAdvisory)
}

// On a fixture of varied lengths the note's figures are the requests'
// own, not the fixture's mean: a server that gives half of each asked
// output gives half of the tokens asked, summed over the step.
func TestLighterThanAskedCountsEachRequestsOwnLength(t *testing.T) {
	p := halfWorkPlan(t, halfWorkServer(t, 0))
	p.Fixture = plantest.MustFixture(t, "random:16:64:0.75")
	p.LengthsAdvisory = true
	rep, err := Measure(context.Background(), p)
	require.NoError(t, err)
	e := rep.Steps[0].Evidence
	require.NotNil(t, e)
	require.Positive(t, e.OutputRequests)
	assert.Equal(t, rep.Steps[0].Requests.Completed, e.OutputRequests)
	assert.Equal(t, rep.Steps[0].Tokens.Output, e.OutputGiven, "given is what usage reported")
	assert.InDelta(t, float64(e.OutputAsked)/2, float64(e.OutputGiven), float64(e.OutputRequests)/2+0.5, "half of each, rounded down")
	asked := float64(e.OutputAsked) / float64(e.OutputRequests)
	assert.Contains(t, rep.Steps[0].Notes[0].Message, fmt.Sprintf("for %.1f asked", asked))
}

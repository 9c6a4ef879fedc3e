package tune

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/serveflags"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
)

// Advice is a measurement too: every flag value llmslo recommends must
// pass, applied on the same server and workload, the gate that
// recommended it. These tests apply the advice and run again.

// adviceSim is the hand-fit profile with sixteen sequences: compute
// binds near 17.5 req/s of 512 prompt and 32 output tokens (tunePlan).
var adviceSim = []string{"--profile", "h100-llama3-8b", "--max-num-seqs", "16"}

func advicePlan(t *testing.T, rates []float64, args ...string) load.Plan {
	plan := tunePlan(t, args...)
	plan.Rates = rates
	return plan
}

var setLimit = regexp.MustCompile(`set --max-num-queued-reqs (\d+)`)

// The overload gate on a server without an admission limit names one;
// the same server restarted with that limit passes the same gate.
func TestOverloadGatesLimitPassesWhenApplied(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plan := advicePlan(t, []float64{15, 26.3}, adviceSim...)
		plan.Overload = &verdict.OverloadSettings{}
		rep, err := load.Measure(context.Background(), plan)
		require.NoError(t, err)
		require.Len(t, rep.Steps, 2)
		g := rep.Steps[1].OverloadGate
		require.NotNil(t, g)
		t.Logf("without a limit: %s", g.Message)
		require.False(t, g.Pass, "the server queues past its knee")
		m := setLimit.FindStringSubmatch(g.Message)
		require.NotNil(t, m, "the gate names a value: %s", g.Message)
		limit, _ := strconv.Atoi(m[1])
		assert.Equal(t, g.SuggestedQueuedReqs, limit)

		applied := advicePlan(t, []float64{26.3}, append(adviceSim, "--max-num-queued-reqs", m[1])...)
		applied.Overload = &verdict.OverloadSettings{QueuedReqs: limit}
		rep, err = load.Measure(context.Background(), applied)
		require.NoError(t, err)
		g = rep.Steps[0].OverloadGate
		require.NotNil(t, g)
		t.Logf("with --max-num-queued-reqs %d: %s", limit, g.Message)
		assert.True(t, g.Pass, "the gate's own advice passes it: %s", g.Message)
	})
}

// tune's final line is one vLLM takes: no simulator-only flag, every flag
// tune and Protect recommend, its admission limit and batch cap agreeing.
// Started as the simulator (its hardware flags added back), it holds the
// knee tune reported: a step just below the bracket's lower end passes.
func TestTunesFinalLineHoldsTheKnee(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plan := advicePlan(t, []float64{12, 20}, adviceSim...)
		rep, err := Tune(context.Background(), plan, Options{Search: Search{Refine: 1}, Budget: 1})
		require.NoError(t, err)
		tu, p := rep.Tune, rep.Protect
		require.NotNil(t, tu)
		require.NotNil(t, p)
		require.NotNil(t, rep.Capacity)
		t.Logf("knee %s; %s; %s; note: %s", Bracket(rep.Capacity.PassRate, rep.Capacity.FailRate), p.Flag, tu.Command, tu.CommandNote)
		require.Positive(t, rep.Capacity.PassRate)

		fields := strings.Fields(tu.Command)
		require.GreaterOrEqual(t, len(fields), 3)
		assert.Equal(t, []string{"vllm", "serve", rep.Target.Model}, fields[:3])
		line := fields[3:]
		for _, a := range line {
			assert.False(t, vllmsim.SimulatorOnly(a), "%s is the simulator's flag, not vLLM's", a)
		}
		_, err = vllmsim.ParseServeArgs(line)
		require.NoError(t, err)
		limit, ok := serveflags.Int(line, "--max-num-queued-reqs")
		require.True(t, ok, "Protect's limit is in the line")
		assert.Equal(t, p.MaxNumQueuedReqs, limit)
		seqs, _ := serveflags.Int(line, "--max-num-seqs")
		assert.LessOrEqual(t, seqs, limit, "the batch cap says what the limit lets run at once")
		assert.Equal(t, []string{"--profile", "h100-llama3-8b"}, tu.SimulatorOnly)

		below := RoundRate(0.95 * rep.Capacity.PassRate)
		check := advicePlan(t, []float64{below}, append(tu.SimulatorOnly, line...)...)
		got, err := load.Measure(context.Background(), check)
		require.NoError(t, err)
		st := got.Steps[0]
		t.Logf("%s: %s, shed %d, tpot p50 %.1f ms", st.Name, st.Verdict, st.Requests.Shed, st.TPOT.P50)
		assert.Equal(t, report.VerdictPass, st.Verdict, "the final line holds the knee: %+v", st.SLO)
		assert.Zero(t, st.Requests.Shed, "the limit sheds nothing below the knee")
	})
}

// A server that already sheds binds on its own admission limit, not on
// compute: the step and the sweep say so, tune stops there, and Protect
// says when its limit lies below the server's.
func TestASheddingServerBindsAdmission(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plan := advicePlan(t, []float64{10, 20}, append(adviceSim, "--max-num-queued-reqs", "12")...)
		plan.Duration = 3 * time.Second
		rep, err := Tune(context.Background(), plan, Options{Budget: 2, NoOverload: true})
		require.NoError(t, err)
		failing := rep.Steps[len(rep.Steps)-1]
		t.Logf("%s: shed %d; binding %+v", failing.Name, failing.Requests.Shed, failing.Binding)
		require.Positive(t, failing.Requests.Shed, "20 req/s is past what 12 in flight carry")
		require.NotNil(t, failing.Binding)
		assert.Equal(t, verdict.BindAdmission, failing.Binding.Kind)
		require.NotNil(t, rep.Capacity)
		require.NotNil(t, rep.Capacity.Binding)
		assert.Equal(t, verdict.BindAdmission, rep.Capacity.Binding.Kind, "the sweep names it")
		assert.Equal(t, verdict.BindAdmission, rep.Tune.Iterations[0].Binding, "and tune")
		assert.Contains(t, rep.Tune.Stop, "own admission limit binds (--max-num-queued-reqs 12)")
		require.NotNil(t, rep.Protect)
		assert.Equal(t, 12, rep.Protect.MaxNumQueuedReqs, "Protect keeps the limit that binds at the knee: %s", rep.Protect.Note)
	})
}

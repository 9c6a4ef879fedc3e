package tune

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/plantest"
)

// A tuning session run until decided reaches the knees, bindings and
// final flags of the same session run to every step's end, in less time:
// the loop from --max-num-seqs 4 with 10 s steps (2 s floor), on SLOs
// whose percentiles a few seconds decide.
func TestTuneUntilDecidedReachesTheSameFlagsSooner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		session := func(untilDecided bool) (*tuneOutcome, time.Duration) {
			plan := tunePlan(t, "--profile", "h100-llama3-8b", "--max-num-seqs", "4")
			plan.Duration, plan.SLOs = 10*time.Second, plantest.MustSLOs(t, "ttft.p50<=1s", "tpot.p50<=19ms")
			plan.UntilDecided, plan.MinDuration = untilDecided, 2*time.Second
			start := time.Now()
			rep, err := Tune(context.Background(), plan, Options{Search: Search{Refine: 1, Precision: 0.1}, Budget: 2, NoOverload: true})
			require.NoError(t, err)
			require.NotNil(t, rep.Tune)
			out := &tuneOutcome{command: rep.Tune.Command}
			for _, st := range rep.Steps {
				if u := st.UntilDecided; u != nil {
					t.Logf("%s %.1f s: %s", st.Name, st.DurationS, u.Why)
				}
			}
			for _, it := range rep.Tune.Iterations {
				out.knees = append(out.knees, Bracket(it.PassRate, it.FailRate))
				out.bindings = append(out.bindings, string(it.Binding))
			}
			return out, time.Since(start)
		}
		decided, decidedTook := session(true)
		full, fullTook := session(false)
		t.Logf("to every step's end: %v, %+v", fullTook.Round(time.Second), *full)
		t.Logf("until decided:       %v, %+v", decidedTook.Round(time.Second), *decided)
		assert.Equal(t, full.bindings, decided.bindings)
		assert.Equal(t, full.knees, decided.knees)
		// The admission limit is read by Little's law from the last passing
		// step's measured time-average in the system: two sessions differ by
		// one request there whether or not they stop early. Every other flag
		// is the same.
		assert.Equal(t, withoutLimit(full.command), withoutLimit(decided.command))
		assert.InDelta(t, limitOf(t, full.command), limitOf(t, decided.command), 1)
		assert.Less(t, decidedTook, fullTook, "stopping when decided takes less time")
	})
}

type tuneOutcome struct {
	knees, bindings []string
	command         string
}

var queuedReqs = regexp.MustCompile(` --max-num-queued-reqs (\d+)`)

func withoutLimit(cmd string) string { return queuedReqs.ReplaceAllString(cmd, "") }

func limitOf(t *testing.T, cmd string) float64 {
	m := queuedReqs.FindStringSubmatch(cmd)
	require.NotNil(t, m, cmd)
	n, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	return float64(n)
}

package load

import (
	"context"
	"math"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
)

// Side by side until decided, this side looks at both servers' cohorts
// at the same moments and stops both schedules at once: an unchanged
// server is decided before the cap and passes, one whose every engine
// step takes a fifth longer fails as a regression before the cap, and
// in both the two sides were sent the same requests over the same window.
func TestSideBySideStopsBothSidesWhenDecided(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []struct {
			scale   float64
			verdict report.Verdict
		}{{1, report.VerdictPass}, {1.2, report.VerdictFail}} {
			p := gatePlan(t, vllmsim.Config{StepTimeScale: c.scale})
			p.Versus, p.UntilDecided = virtualSimTarget(vllmsim.Config{ProfileName: "h200-llama3-8b"}), true
			rep, err := Measure(context.Background(), p)
			require.NoError(t, err)
			own, base := rep.Steps[0], rep.Versus.Steps[0]
			require.NotNil(t, own.UntilDecided)
			require.NotNil(t, base.UntilDecided)
			t.Logf("×%g: %s; %.1f s measured; %s", c.scale, own.UntilDecided.Why, own.DurationS, base.UntilDecided.Why)
			assert.True(t, own.UntilDecided.Decided, "×%g", c.scale)
			assert.Equal(t, string(c.verdict), own.UntilDecided.Outcome)
			assert.Equal(t, c.verdict, own.Verdict)
			assert.Less(t, own.DurationS, 30.0, "×%g: stopped before the cap", c.scale)
			assert.Equal(t, c.verdict == report.VerdictFail, len(verdict.Regressions(own.Versus)) > 0, "×%g: %+v", c.scale, own.Versus)

			// Both sides stopped together, on the same requests.
			assert.True(t, base.UntilDecided.Decided)
			assert.Equal(t, own.UntilDecided.AtS, base.UntilDecided.AtS)
			assert.Equal(t, own.DurationS, base.DurationS)
			assert.Equal(t, own.Requests.Scheduled, base.Requests.Scheduled)
			assert.Equal(t, own.Requests.Sent, base.Requests.Sent)
			assert.NotEmpty(t, base.UntilDecided.Looks, "the base's cohort looked at with this side's")
			assert.Len(t, base.UntilDecided.Looks, len(own.UntilDecided.Looks))
			assert.Equal(t, report.VerdictPass, base.Verdict, "the base on its own SLOs")
			for _, v := range own.Versus {
				require.NotNil(t, v.RatioCI95, v.Metric)
			}
			// Decided on a baseline look's comparison, at that look's share
			// of the 5%: one of the first three horizons' (10, 16.7, 23.3 s).
			assert.Contains(t, lookLevels(), roundLevel(own.UntilDecided.BaselineConfidence), "×%g", c.scale)
			assert.Zero(t, base.UntilDecided.BaselineConfidence, "the base compares with nothing")
		}
	})
}

// A hazard on the base's side keeps a passing step open, since it could
// have hidden a regression: the step runs to its cap, says why, and is
// refused as a side-by-side step with a refused base always is. (The
// tolerance is wide, so that the comparison itself settles early: the
// base's hazard is what holds the step.)
func TestSideBySideWaitsOnTheBasesHazard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := gatePlan(t, vllmsim.Config{})
		p.Versus = virtualSimTarget(vllmsim.Config{ProfileName: "h200-llama3-8b", Faults: vllmsim.Faults{TruncateRate: 0.05, TruncateFraction: 0.9}})
		p.UntilDecided, p.VersusTolerance = true, 1
		rep, err := Measure(context.Background(), p)
		require.NoError(t, err)
		own, base := rep.Steps[0], rep.Versus.Steps[0]
		require.NotNil(t, own.UntilDecided)
		t.Logf("%s; base: %s", own.UntilDecided.Why, base.Verdict)
		assert.False(t, own.UntilDecided.Decided)
		assert.Contains(t, own.UntilDecided.Why, "the base side: a hazard is open: "+verdict.HazardLengthMismatch)
		assert.Equal(t, 30.0, own.DurationS)
		assert.Equal(t, report.VerdictInvalid, base.Verdict)
		assert.Equal(t, report.VerdictInvalid, own.Verdict)
		// Not decided: the cap's comparison spends what the looks left.
		var rests []float64
		for k := range verdict.BaselineLooks {
			rests = append(rests, roundLevel(verdict.CIConfidence+verdict.BaselineSpent(k, 10, 30)))
		}
		assert.Contains(t, rests, roundLevel(own.UntilDecided.BaselineConfidence))
	})
}

// lookLevels are the confidences the looks of a 30 s step with a 10 s floor
// compare at when each reaches its horizon in turn, or several at once.
func lookLevels() []float64 {
	var out []float64
	for from := range verdict.BaselineLooks - 1 {
		for to := from + 1; to < verdict.BaselineLooks; to++ {
			out = append(out, roundLevel(1-(verdict.BaselineSpent(to, 10, 30)-verdict.BaselineSpent(from, 10, 30))))
		}
	}
	return out
}

func roundLevel(c float64) float64 { return math.Round(c*1e9) / 1e9 }

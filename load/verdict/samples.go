package verdict

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmslo/llmslo/load/report"
)

// tooFewSamples finds gated percentiles that rest on fewer than
// MinTailSamples observations beyond them. Such a percentile decides
// nothing only when its 95% interval already lies wholly on one side of
// the limit (the order-statistic interval holds for any sample size): then
// it is a note. An open one makes the step invalid, since more samples
// could move it across the limit.
func tooFewSamples(s *report.StepReport, ev stepEvidence, th Thresholds) finding {
	var why, settled []string
	needS := 0.0 // the step length that gives every gated metric its samples
	for i, slo := range ev.slos {
		if slo.Metric == report.MetricErrorRate {
			continue
		}
		h := s.Histograms[slo.Metric]
		if h == nil {
			continue
		}
		n := float64(h.Count())
		tail := n * (1 - slo.Percentile/100)
		if tail >= th.MinTailSamples {
			continue
		}
		want := th.MinTailSamples / (1 - slo.Percentile/100)
		clause := fmt.Sprintf("%s rests on %.1f observations beyond the percentile (%d samples; it needs at least %.0f)",
			slo.Name(), tail, int64(n), want)
		if r, ok := resultOf(s, ev, i); ok && r.Conclusive {
			side := "below"
			if !r.Pass {
				side = "above"
			}
			settled = append(settled, clause+", but its 95% interval already lies wholly "+side+" the limit")
			continue
		}
		why = append(why, clause)
		needS = max(needS, stepLengthFor(s, slo.Metric, n, want, ev.meanOutput))
	}
	if len(why) == 0 {
		if len(settled) == 0 {
			return finding{}
		}
		return finding{seen: true, Hazard: report.Hazard{Kind: HazardTooFewSamples,
			Message: strings.Join(settled, "; ") + ": more samples could not change its verdict"}}
	}
	fix := "run longer or at a higher rate"
	if needS > 0 {
		// 20% over the estimate, rounded up to 5 s: a Poisson step and a
		// few failures should not leave the next run short again.
		secs := math.Ceil(needS*1.2/5) * 5
		fix = fmt.Sprintf("run the step for at least %.0f s", secs)
		if s.RateTarget > 0 {
			fix += fmt.Sprintf(" at %g %s", s.RateTarget, s.RateUnit())
		}
		fix += fmt.Sprintf(" (this one measured %.0f s)", s.DurationS)
	}
	return finding{seen: true, decides: true, Hazard: report.Hazard{Kind: HazardTooFewSamples,
		Message: strings.Join(append(why, settled...), "; "), Fix: fix}}
}

// stepLengthFor estimates the measured seconds a step needs for want
// samples of metric. From the samples this step got when it got any (that
// accounts for failures and for how many ITL gaps a request gives), else
// from the rate: one sample a completed request, or the fixture's mean
// output length less one for ITL.
func stepLengthFor(s *report.StepReport, metric report.Metric, have, want, meanOutput float64) float64 {
	if have > 0 && s.DurationS > 0 {
		return s.DurationS * want / have
	}
	rate := s.RateTarget
	if rate <= 0 {
		rate = s.RateAchieved
	}
	if rate <= 0 {
		return 0
	}
	perRequest := 1.0
	if metric == report.MetricITL {
		if meanOutput <= 1 {
			return 0
		}
		perRequest = meanOutput - 1
	}
	return want / perRequest / rate
}

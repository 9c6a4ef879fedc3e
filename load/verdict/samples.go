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
	var why, decided []string
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
			decided = append(decided, clause+", but its 95% interval already lies wholly "+side+" the limit")
			continue
		}
		why = append(why, clause)
		needS = max(needS, stepLengthFor(s, slo.Metric, n, want, ev.meanOutput))
	}
	if len(why) == 0 {
		if len(decided) == 0 {
			return finding{}
		}
		return finding{seen: true, Hazard: report.Hazard{Kind: HazardTooFewSamples,
			Message: strings.Join(decided, "; ") + ": more samples could not change its verdict"}}
	}
	fix := "run longer or at a higher rate"
	if needS > 0 {
		// 20% over the estimate, rounded up to 5 s: a Poisson step and a
		// few failures should not leave the next run short again.
		secs := math.Ceil(needS*1.2/5) * 5
		if len(s.Blocks) > 0 && s.Blocks[0].WindowS > 0 {
			// An alternating step's window is whole blocks (VersusAlternate).
			b := s.Blocks[0].WindowS
			secs = math.Ceil(secs/b) * b
		}
		fix = fmt.Sprintf("run the step for at least %.0f s", secs)
		if s.RateTarget > 0 {
			fix += fmt.Sprintf(" at %g %s", s.RateTarget, s.RateUnit())
		}
		fix += fmt.Sprintf(" (this one measured %.0f s)", s.DurationS)
	}
	return finding{seen: true, decides: true, Hazard: report.Hazard{Kind: HazardTooFewSamples,
		Message: strings.Join(append(why, decided...), "; "), Fix: fix}}
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
	perRequest := samplesPerRequest(metric, meanOutput)
	if rate <= 0 || perRequest <= 0 {
		return 0
	}
	return want / perRequest / rate
}

// samplesPerRequest is how many observations of metric a completed
// request gives: one, or its output length less one for ITL (0 when
// unknown).
func samplesPerRequest(metric report.Metric, meanOutput float64) float64 {
	if metric != report.MetricITL {
		return 1
	}
	return max(meanOutput-1, 0)
}

// ShortStep is a gated percentile that a step of the planned rate and
// length cannot give MinTailSamples observations beyond it.
type ShortStep struct {
	SLO      SLO
	Need     float64 // samples the percentile needs
	Expect   float64 // samples rate × duration gives
	NeedSecs float64 // measured seconds that give Need at the rate
}

// PlannedShortStep finds, before any request is sent, the first gated
// percentile that a step of rate requests per second lasting durationS
// seconds leaves with too few samples (the rule of too_few_samples);
// meanOutput is the fixture's mean output length. ok is false when every
// gated percentile gets its samples, or when too_few_samples is off. Zero
// thresholds take their defaults.
func PlannedShortStep(slos []SLO, th Thresholds, rate, durationS, meanOutput float64) (ShortStep, bool) {
	th = th.Resolved()
	if th.IsOff(HazardTooFewSamples) || rate <= 0 {
		return ShortStep{}, false
	}
	for _, slo := range slos {
		perRequest := samplesPerRequest(slo.Metric, meanOutput)
		if slo.Metric == report.MetricErrorRate || perRequest <= 0 {
			continue
		}
		need := th.MinTailSamples / (1 - slo.Percentile/100)
		expect := rate * durationS * perRequest
		if expect < need {
			return ShortStep{SLO: slo, Need: need, Expect: expect, NeedSecs: need / perRequest / rate}, true
		}
	}
	return ShortStep{}, false
}

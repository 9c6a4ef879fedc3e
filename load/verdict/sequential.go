package verdict

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// Sequential is what judging a step run until decided needs besides the
// step: its cap, and whether this judgement may compare with the baseline.
//
// Such a step is looked at every second and stops once its verdict cannot
// change (JudgeLook). Its SLOs are conclusive only on anytime intervals
// (stats.QuantileCS, stats.ProportionCS), which hold at every look at
// once, so that looking often does not buy wrong verdicts. The baseline's
// ratio interval is a bootstrap that has no anytime form: it is computed at
// BaselineLooks looks only (BaselineLooksReached), each at the confidence
// its share of the error rate leaves (BaselineSpent), so that together
// they err at most as often as one 95% interval.
type Sequential struct {
	// CapS is the measured window's planned length, in seconds.
	CapS float64
	// PlannedRequests is how many measured requests the cap holds.
	PlannedRequests int
	// BaselineLevel, when above 0, says this judgement compares with the
	// baseline, at that confidence: it is one of the BaselineLooks, or
	// the step's last judgement (BaselineSpent).
	BaselineLevel float64
	// Settled holds the last baseline look's checks when they decided the
	// comparison (Settled): a look between baseline looks may pass or
	// fail on them, so that a step need not have everything else settled
	// at the very look that compares.
	Settled []report.BaselineCheck
}

// Settled returns checks when they decide the comparison: one is a
// regression (its whole interval over the tolerance), or each one's
// interval lies wholly within its tolerance (none can call one). Else nil:
// a check is still open.
func Settled(checks []report.BaselineCheck) []report.BaselineCheck {
	if len(Regressions(checks)) > 0 {
		return checks
	}
	for _, b := range checks {
		if !withinTolerance(b) {
			return nil
		}
	}
	return checks
}

// withinTolerance says a check's whole interval lies under ×(1 +
// tolerance): it cannot call a regression.
func withinTolerance(b report.BaselineCheck) bool {
	return b.RatioCI95 != nil && b.RatioCI95[1] <= 1+b.Tolerance
}

// tunedFor is the sample size an anytime interval for percentile p is
// made narrowest at: half the samples too_few_samples asks of it by
// default (50 for a p90, 100 for a p95), near where a healthy step can
// first be decided. At p95 the upper bound then exists from 85
// observations on (a fixed interval's from 72).
func tunedFor(p float64) int64 {
	return int64(math.Ceil(DefaultThresholds().MinTailSamples / (1 - p/100) / 2))
}

// guardTunedFor is the sample size the error guard's anytime interval is
// made narrowest at: a few dozen requests, where a step stops soonest (at
// 0 unserved of 100 its upper end is 3.4%, below Wilson's fixed 3.7%).
const guardTunedFor = 30

// judgeAnytime sets r's anytime interval and rests Conclusive (and, in
// strict mode, Pass) on it.
func judgeAnytime(r *report.SLOResult, s *report.StepReport, slo SLO, strict bool) {
	if slo.Metric == report.MetricErrorRate {
		n := int64(s.Requests.Judged())
		if n == 0 {
			return
		}
		k := int64(s.Requests.Unserved())
		lo, hi := stats.ProportionCS(k, n, CIConfidence, guardTunedFor)
		r.Anytime = &report.Bounds{Lo: &lo, Hi: &hi}
		r.Conclusive = hi <= slo.MaxRate || lo > slo.MaxRate
		if strict {
			r.Pass = hi <= slo.MaxRate
		}
		return
	}
	h := s.Histograms[slo.Metric]
	if h == nil || h.Count() == 0 {
		return
	}
	deff := s.Clusters[slo.Metric].DesignEffect(h.Quantile(slo.Percentile))
	lo, hi, hasLo, hasHi := h.QuantileCS(slo.Percentile, CIConfidence, deff, tunedFor(slo.Percentile))
	b := &report.Bounds{}
	if hasLo {
		v := ms(lo)
		b.Lo = &v
	}
	if hasHi {
		v := ms(hi)
		b.Hi = &v
	}
	r.Anytime = b
	r.Conclusive = (hasHi && hi <= slo.Limit) || (hasLo && lo > slo.Limit)
	if strict {
		r.Pass = hasHi && hi <= slo.Limit
	}
}

// LookVerdict is what a look at a step in progress found: whether its
// verdict is decided, which, and why; and every gated SLO's anytime
// interval.
type LookVerdict struct {
	Decided bool
	Verdict report.Verdict
	Why     string
	// Refused says a hazard is open: the step as it stands would be
	// refused.
	Refused bool
	SLOs    []string
	Bounds  []report.Bounds
	// Baseline is the comparison a baseline look made (nil at other
	// looks).
	Baseline []report.BaselineCheck

	judgement Judgement
}

// Apply writes the look's judgement (its SLO results, hazards, verdict)
// into s, the step it judged: a base side's cohort, which this side's
// comparison then reads.
func (d LookVerdict) Apply(s *report.StepReport) { d.judgement.Apply(s) }

// JudgeLook judges a step in progress (the cohort of its first requests,
// all finished; see observe.Cohort) on c, which must be Sequential, and
// says whether it may stop:
//
//   - as PASS, when it would pass with every latency SLO conclusive on
//     its anytime interval, no hazard, the error guard unable to fail it
//     by the cap at any rate the anytime interval still allows, every
//     baseline comparison conclusive, and the delay's trend ruled out: no
//     rise that over-capacity would call, over the whole cap;
//   - as FAIL, when it would fail on a conclusive error rate; as over
//     capacity, once that is found and an SLO fails; or on a conclusive latency SLO or
//     regression once over capacity is settled either way (nothing has
//     waited, or the delay's rise is ruled out), so that stopping never
//     hides the finding the full window would show.
func JudgeLook(s *report.StepReport, ev observe.Evidence, c Criteria) LookVerdict {
	j := Judge(s, ev, c)
	d := LookVerdict{judgement: j}
	if c.Sequential.BaselineLevel > 0 {
		d.Baseline = j.Baseline
	}
	for i, r := range j.SLO {
		d.SLOs = append(d.SLOs, Guarded(c.SLOs)[i].Name())
		b := report.Bounds{}
		if r.Anytime != nil {
			b = *r.Anytime
		}
		d.Bounds = append(d.Bounds, b)
	}
	th := c.Thresholds.Resolved()
	switch j.Verdict {
	case report.VerdictPass:
		if why, ok := passDecided(s, ev.TTFTBlocks, j, c, th); ok {
			d.Decided, d.Verdict, d.Why = true, report.VerdictPass, why
		} else {
			d.Why = why
		}
	case report.VerdictFail:
		if why, ok := failDecided(s, ev.TTFTBlocks, j, c, th); ok {
			d.Decided, d.Verdict, d.Why = true, report.VerdictFail, why
		} else {
			d.Why = why
		}
	default:
		d.Refused, d.Why = true, "a hazard is open: "+hazardKinds(j.Hazards)
	}
	return d
}

func passDecided(s *report.StepReport, blocks []report.TTFTBlock, j Judgement, c Criteria, th Thresholds) (string, bool) {
	slos := Guarded(c.SLOs)
	var said []string
	for i, r := range j.SLO {
		slo := slos[i]
		if slo.Metric == report.MetricErrorRate {
			if !r.Conclusive && (c.Strict || !guardSettled(s, r, slo, c.Sequential)) {
				return fmt.Sprintf("%s is open (%d of %d unserved)", slo.Name(), s.Requests.Unserved(), s.Requests.Judged()), false
			}
			guard := fmt.Sprintf("errors %d of %d", s.Requests.Unserved(), s.Requests.Judged())
			if !r.Conclusive {
				guard += " (no error rate still possible would fail the guard by the cap)"
			}
			said = append(said, guard)
			continue
		}
		if !r.Conclusive {
			if r.Anytime != nil && r.Anytime.Hi == nil {
				return fmt.Sprintf("%s is open: %d samples (design effect %.1f) are too few for an anytime upper bound",
					slo.Name(), r.Samples, max(r.DesignEffect, 1)), false
			}
			return slo.Name() + " is open: its anytime interval still holds the limit", false
		}
		said = append(said, fmt.Sprintf("%s ≤ %s (upper bound %s)", slo.Name(), slo.Limit, msDuration(*r.Anytime.Hi)))
	}
	if c.Baseline != nil {
		if len(j.Baseline) == 0 {
			return c.baselineWords("the baseline", "the base") + " is not yet compared within its tolerance (it is compared at four horizons from the floor to the cap)", false
		}
		for _, b := range j.Baseline {
			if !withinTolerance(b) {
				return fmt.Sprintf("%s.p%g against %s is open", b.Metric, b.Percentile, c.baselineWords("the baseline", "the base")), false
			}
			said = append(said, fmt.Sprintf("%s.p%g ×%.2f of %s (at most ×%.2f)", b.Metric, b.Percentile, b.Ratio, c.baselineWords("the baseline", "the base"), b.RatioCI95[1]))
		}
	}
	if why, ok := trendRuledOut(s, blocks, c, th, headroom(j.SLO)); !ok {
		return why, false
	}
	return strings.Join(said, ", "), true
}

// headroom is how far a rise in the server's delay could go before it
// moves a delay-bearing SLO (TTFT, E2EL) across its limit: the least gap
// between such a limit and its anytime upper bound, in ms (0: none).
func headroom(rs []report.SLOResult) float64 {
	room := math.Inf(1)
	for _, r := range rs {
		if (r.Metric == string(report.MetricTTFT) || r.Metric == string(report.MetricE2EL)) && r.Anytime != nil && r.Anytime.Hi != nil {
			room = min(room, r.LimitMs-*r.Anytime.Hi)
		}
	}
	if math.IsInf(room, 1) || room < 0 {
		return 0
	}
	return room
}

func failDecided(s *report.StepReport, blocks []report.TTFTBlock, j Judgement, c Criteria, th Thresholds) (string, bool) {
	slos := Guarded(c.SLOs)
	var said []string
	latency := false
	for i, r := range j.SLO {
		if r.Pass || !r.Conclusive {
			continue
		}
		slo := slos[i]
		if slo.Metric == report.MetricErrorRate {
			said = append(said, fmt.Sprintf("%s: %d of %d unserved (at least %.1f%%)", slo.Name(),
				s.Requests.Unserved(), s.Requests.Judged(), 100**r.Anytime.Lo))
			continue
		}
		latency = true
		said = append(said, fmt.Sprintf("%s > %s (lower bound %s)", slo.Name(), slo.Limit, msDuration(*r.Anytime.Lo)))
	}
	for _, reg := range regressions(j.Baseline, c.baselineWords("a baseline of", "the base's")) {
		latency = true
		said = append(said, reg)
	}
	if latency {
		// The full judgement of a step cut here must not find it too
		// short: every gated percentile has its samples, or its own
		// verdict is conclusive (too_few_samples' rule).
		for i, r := range j.SLO {
			slo := slos[i]
			if slo.Metric == report.MetricErrorRate || r.Conclusive {
				continue
			}
			if need := th.MinTailSamples / (1 - slo.Percentile/100); float64(r.Samples) < need {
				return fmt.Sprintf("%s has %d of the %.0f samples a step cut now needs", slo.Name(), r.Samples, need), false
			}
		}
	}
	failing := slices.ContainsFunc(j.SLO, func(r report.SLOResult) bool { return !r.Pass })
	switch {
	case j.OverCapacity != nil && failing:
		// A queue growing faster than the server completes, and an SLO
		// already failing: it fails however long the step runs, and the
		// longer, the more so. Over capacity alone does not stop a step:
		// seen over a few seconds, a burst can read as growth.
		said = append(said, "over capacity ("+j.OverCapacity.Message+")")
	case j.OverCapacity != nil && len(said) == 0:
		return "over capacity is found, but no SLO fails yet", false
	case len(said) == 0:
		return "it fails, but not yet conclusively", false
	case latency && s.Server.MetricsAvailable && s.Server.MaxWaiting == 0:
		// Nothing has waited: the failure is the running batch's, and no
		// queue is there to grow into over capacity.
	case latency:
		if why, ok := trendRuledOut(s, blocks, c, th, 0); !ok {
			return why + " (over capacity is not yet settled)", false
		}
	}
	return strings.Join(said, ", "), true
}

// guardSettled says the error guard cannot fail the step by its cap: at
// the highest error rate its anytime interval still allows, the requests
// left to the cap would not bring the whole of the full window's 95%
// interval over the limit.
func guardSettled(s *report.StepReport, r report.SLOResult, slo SLO, seq *Sequential) bool {
	if r.Anytime == nil || r.Anytime.Hi == nil || seq == nil {
		return false
	}
	n := s.Requests.Judged()
	left := max(seq.PlannedRequests-n, 0)
	k := float64(s.Requests.Unserved()) + *r.Anytime.Hi*float64(left)
	total := int64(n + left)
	lo, _ := stats.WilsonInterval(int64(math.Ceil(k)), total, CIConfidence)
	return lo <= slo.MaxRate
}

// trendRuledOut says the delay's trend, fitted on what the step has,
// bounds its rise over the whole cap (its 98% upper end) below what
// matters: what over_capacity's trend rule would call a rise, or, when
// larger, room, the rise a passing step's delay-bearing SLOs can take
// before their verdict could change.
func trendRuledOut(s *report.StepReport, blocks []report.TTFTBlock, c Criteria, th Thresholds, room float64) (string, bool) {
	t, ok := delayTrend(s, blocks, th)
	if !ok {
		return "the trend has too few blocks yet", false
	}
	capS := s.DurationS
	if c.Sequential != nil {
		capS = c.Sequential.CapS
	}
	matters := max(ms(th.MinTrendRise), th.MinTrendRiseShare*s.TTFT.P50, room)
	if t.fit.Hi*capS >= matters {
		return fmt.Sprintf("%s could still rise by %.0f ms over the cap (%.0f ms would matter)", t.source, t.fit.Hi*capS, matters), false
	}
	return "", true
}

func hazardKinds(hs []report.Hazard) string {
	var k []string
	for _, h := range hs {
		k = append(k, h.Kind)
	}
	return strings.Join(k, ", ")
}

// msDuration writes a millisecond figure as a duration, rounded to what
// a reader compares with a limit.
func msDuration(v float64) time.Duration {
	d := time.Duration(v * float64(time.Millisecond))
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= 10*time.Millisecond:
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Microsecond)
}

// baselineWords is recorded, the words naming a recorded baseline, or
// base when the step is compared with a server run beside it.
func (c Criteria) baselineWords(recorded, base string) string {
	if c.BaselineIsBase {
		return base
	}
	return recorded
}

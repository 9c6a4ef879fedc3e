package verdict

import (
	"time"

	"github.com/llmslo/llmslo/observe"
	"github.com/llmslo/llmslo/report"
	"github.com/llmslo/llmslo/stats"
)

// CIConfidence is the confidence of the intervals the report gives.
const CIConfidence = 0.95

// judgeSLOs checks every SLO against the step. In strict mode a latency SLO
// passes only when the upper end of its 95% interval is within the limit.
func judgeSLOs(s *report.StepReport, slos []SLO, strict bool) []report.SLOResult {
	out := make([]report.SLOResult, 0, len(slos))
	for _, slo := range slos {
		if slo.Metric == report.MetricErrorRate {
			er := s.ErrorRate()
			out = append(out, report.SLOResult{
				Metric: string(slo.Metric), MaxRate: slo.MaxRate, Observed: er,
				Samples: int64(s.Requests.Sent - s.Requests.Canceled), Conclusive: true, Pass: er <= slo.MaxRate,
			})
			continue
		}
		out = append(out, judgeLatency(s.Histograms[slo.Metric], slo, strict))
	}
	return out
}

func judgeLatency(h *stats.Histogram, slo SLO, strict bool) report.SLOResult {
	res := report.SLOResult{
		Metric: string(slo.Metric), Percentile: slo.Percentile, LimitMs: ms(slo.Limit),
		NeededSamples: stats.MinSamplesForCI(slo.Percentile, CIConfidence),
	}
	if h == nil || h.Count() == 0 {
		return res // nothing measured: no pass
	}
	res.Samples = h.Count()
	obs := h.Quantile(slo.Percentile)
	res.ObservedMs = ms(obs)
	lo, hi, ok := h.QuantileCI(slo.Percentile)
	if ok {
		res.CI95Ms = &[2]float64{ms(lo), ms(hi)}
		res.Conclusive = hi <= slo.Limit || lo > slo.Limit
	}
	res.Pass = obs <= slo.Limit
	if strict {
		res.Pass = ok && hi <= slo.Limit
	}
	return res
}

// GoodputLimits derives goodput's per-request limits from the latency
// SLOs on TTFT, TPOT and E2EL.
func GoodputLimits(slos []SLO) observe.PerRequestLimits {
	var l observe.PerRequestLimits
	set := func(d *time.Duration, v time.Duration) {
		if *d == 0 || v < *d {
			*d = v
		}
	}
	for _, s := range slos {
		switch s.Metric {
		case report.MetricTTFT:
			set(&l.TTFT, s.Limit)
		case report.MetricTPOT:
			set(&l.TPOT, s.Limit)
		case report.MetricE2EL:
			set(&l.E2EL, s.Limit)
		}
	}
	return l
}

// verdictOf: any hazard makes a step invalid; otherwise any failed SLO
// fails it.
func verdictOf(s *report.StepReport) report.Verdict {
	if len(s.Hazards) > 0 {
		return report.VerdictInvalid
	}
	for _, r := range s.SLO {
		if !r.Pass {
			return report.VerdictFail
		}
	}
	return report.VerdictPass
}

// Check checks one SLO against a step, as the step's own SLOs were.
func Check(s *report.StepReport, slo SLO, strict bool) report.SLOResult {
	return judgeSLOs(s, []SLO{slo}, strict)[0]
}

// Config is what a step is judged against. Its zero Thresholds mean the
// defaults (DefaultThresholds); turning a hazard off is explicit (see
// Thresholds.Off).
type Config struct {
	SLOs   []SLO
	Strict bool
	// ExpectedPrefixHitRate is the fixture's own prefix sharing, against
	// which warm_cache judges the server's hit rate.
	ExpectedPrefixHitRate float64
	Thresholds            Thresholds
}

// Judge fills the step's SLO results, hazards and verdict from what was
// measured (the report and the recorder's evidence). It does no I/O.
func Judge(s *report.StepReport, ev observe.Evidence, c Config) {
	s.SLO = judgeSLOs(s, c.SLOs, c.Strict)
	th := c.Thresholds.Resolved()
	s.Hazards = findHazards(s, stepEvidence{Evidence: ev, expectedHitRate: c.ExpectedPrefixHitRate, slos: c.SLOs}, th)
	s.HazardsOff = append([]string(nil), th.Off...)
	s.Verdict = verdictOf(s)
}

// JudgeSLOs fills only the SLO results and the verdict: for a step whose
// hazards cannot be judged (a closed loop has no schedule to keep).
func JudgeSLOs(s *report.StepReport, c Config) {
	s.SLO = judgeSLOs(s, c.SLOs, c.Strict)
	s.Verdict = verdictOf(s)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

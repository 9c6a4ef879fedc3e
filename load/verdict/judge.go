package verdict

import (
	"math"
	"slices"
	"time"

	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// CIConfidence is the confidence of the intervals the report gives.
const CIConfidence = 0.95

// judgeSLOs checks every SLO against the step. In strict mode an SLO
// passes only when the upper end of its 95% interval is within the limit.
func judgeSLOs(s *report.StepReport, slos []SLO, strict bool, seq *Sequential) []report.SLOResult {
	out := make([]report.SLOResult, 0, len(slos))
	for _, slo := range slos {
		var r report.SLOResult
		if slo.Metric == report.MetricErrorRate {
			r = judgeErrorRate(s, slo, strict)
		} else {
			r = judgeLatency(s.Histograms[slo.Metric], s.Clusters[slo.Metric], slo, strict)
		}
		if seq != nil {
			judgeAnytime(&r, s, slo, strict)
		}
		out = append(out, r)
	}
	return out
}

// judgeErrorRate judges the fraction of failed, shed and unfinished requests with
// its Wilson interval. The step fails only when the whole interval is over
// the limit (strict: passes only when the whole interval is under it), so
// one failure in 80 requests does not flip a 1% SLO, while a server failing
// a third of its requests fails however short the step.
func judgeErrorRate(s *report.StepReport, slo SLO, strict bool) report.SLOResult {
	n := int64(s.Requests.Judged())
	k := int64(s.Requests.Unserved())
	lo, hi := stats.WilsonInterval(k, n, CIConfidence)
	res := report.SLOResult{
		Metric: string(slo.Metric), MaxRate: slo.MaxRate, Observed: s.ErrorRate(), Samples: n,
		CI95: &[2]float64{lo, hi},
	}
	if n == 0 {
		res.CI95 = nil
		res.Pass = !strict // nothing was sent, so nothing failed
		return res
	}
	res.Conclusive = hi <= slo.MaxRate || lo > slo.MaxRate
	res.Pass = lo <= slo.MaxRate
	if strict {
		res.Pass = hi <= slo.MaxRate
	}
	return res
}

// judgeLatency judges a percentile with its 95% interval, widened by the
// design effect the clusters show (nil clusters: none), so that
// observations made together, which are not independent, do not pass for
// more evidence than they are.
func judgeLatency(h *stats.Histogram, cl *stats.Clusters, slo SLO, strict bool) report.SLOResult {
	res := report.SLOResult{
		Metric: string(slo.Metric), Percentile: slo.Percentile, LimitMs: ms(slo.Limit),
		NeededSamples: stats.MinSamplesForCI(slo.Percentile, CIConfidence),
	}
	if h == nil || h.Count() == 0 {
		res.NoObservations = true
		return res // nothing measured: no pass
	}
	res.Samples = h.Count()
	obs := h.Quantile(slo.Percentile)
	res.ObservedMs = ms(obs)
	deff := cl.DesignEffect(obs)
	if deff > 1 {
		res.DesignEffect = math.Round(deff*100) / 100
	}
	lo, hi, ok := h.QuantileCIClustered(slo.Percentile, CIConfidence, deff)
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

// verdictOf applies the verdict rules, in order (docs/verdicts.md):
//
//  1. A conclusive SLO failure (its whole 95% interval over the limit), a
//     regression against the baseline (the ratio's whole interval over
//     the tolerance), or a server over capacity (its queue growing through
//     the window), fails the step, whatever else was found, unless a hazard
//     that could have caused it is present: a late client
//     (client_saturation) or a server that did not generate the asked
//     lengths (length_mismatch). Neither can cause errors: a conclusive
//     error-rate failure fails, unless the client changed the load the
//     server saw.
//  2. Otherwise any hazard makes the step invalid.
//  3. Otherwise any failed SLO fails it; else it passes.
//
// Each hazard check has already asked whether it could change the
// verdict; hazardsToNotes moves those a failure outranks to the notes.
func verdictOf(j Judgement) report.Verdict {
	conclusiveFail, errorsFail, fail := false, false, false
	for _, r := range j.SLO {
		if !r.Pass {
			fail = true
			conclusiveFail = conclusiveFail || r.Conclusive
			errorsFail = errorsFail || (r.Conclusive && r.Metric == string(report.MetricErrorRate))
		}
	}
	conclusiveFail = conclusiveFail || len(Regressions(j.Baseline)) > 0
	causal := j.hasHazard(HazardClientSaturation) || j.hasHazard(HazardLengthMismatch)
	changedLoad := slices.ContainsFunc(j.Hazards, func(h report.Hazard) bool { return h.ChangedLoad })
	switch {
	case errorsFail && !changedLoad:
		// A late client's delay or a length mismatch can inflate
		// latencies, not make a server refuse, reset or fail requests.
		// A client that changed the load (bunched thousands of sends)
		// can: then the errors are not the asked rate's either.
		return report.VerdictFail
	case (conclusiveFail || j.OverCapacity != nil) && !causal:
		return report.VerdictFail
	case len(j.Hazards) > 0:
		return report.VerdictInvalid
	case fail:
		return report.VerdictFail
	}
	return report.VerdictPass
}

// DefaultErrorRate is the error-rate SLO that applies when none is given:
// listing latency SLOs never switches the error guard off. A function, so
// that no caller can change the guard for every other.
func DefaultErrorRate() SLO { return SLO{Metric: report.MetricErrorRate, MaxRate: 0.01} }

// Guarded returns slos with DefaultErrorRate added when they hold no
// error_rate SLO of their own.
func Guarded(slos []SLO) []SLO {
	for _, s := range slos {
		if s.Metric == report.MetricErrorRate {
			return slos
		}
	}
	return append(slices.Clone(slos), DefaultErrorRate())
}

// Check checks one SLO against a step, as the step's own SLOs were.
func Check(s *report.StepReport, slo SLO, strict bool) report.SLOResult {
	return judgeSLOs(s, []SLO{slo}, strict, nil)[0]
}

// Criteria are what a step is judged against. Its zero Thresholds mean the
// defaults (DefaultThresholds); turning a hazard off is explicit (see
// Thresholds.Off).
type Criteria struct {
	SLOs   []SLO
	Strict bool
	// ExpectedPrefixHitRate is the fixture's own prefix sharing, against
	// which warm_cache judges the server's hit rate.
	ExpectedPrefixHitRate float64
	// MeanOutputTokens is the fixture's mean output length: how many ITL
	// samples a request gives, for too_few_samples' advice.
	MeanOutputTokens float64
	// InProcessServer says the server runs in the client's process (the
	// embedded simulator), a cause client_saturation names.
	InProcessServer bool
	// MaxNumSeqs is the server's max_num_seqs when known (0: unknown).
	MaxNumSeqs int
	Thresholds Thresholds
	// Baseline, when set, is the recorded run each step is compared with
	// (CompareBaseline) at BaselineTolerance: a regression fails the step
	// as a conclusive SLO failure does. BaselinePaired says the run was
	// checked to send the baseline's requests on its schedule (the same
	// seed, fixture, arrival, steps, API, duration and warm-up).
	Baseline          *report.Report
	BaselineTolerance float64
	BaselinePaired    bool
	// BaselineIsBase says Baseline is the base side's step, run beside
	// this one (a look at a step run side by side until decided), for the
	// words of what a look decided.
	BaselineIsBase bool
	// LengthsAdvisory says the user declared that the server stops at EOS
	// whatever ignore_eos says: outputs shorter than asked are judged as
	// given, the step says so (NotJudged) and, when they were short enough
	// to lighten the load, notes that the workload was lighter than asked.
	// Without it such a step is invalid (length_mismatch).
	LengthsAdvisory bool
	// Sequential, when set, says the step runs until decided: its SLOs
	// are conclusive only on anytime intervals, and its baseline
	// comparisons spend the error rate over a few looks (sequential.go).
	Sequential *Sequential
}

// Judge decides the step's SLO results, over-capacity finding, hazards,
// notes and verdict from what was measured (the report and the recorder's
// evidence), and returns them: s is left as it was, and Apply writes the
// judgement into it. It does no I/O.
func Judge(s *report.StepReport, ev observe.Evidence, c Criteria) Judgement {
	slos := Guarded(c.SLOs)
	th := c.Thresholds.Resolved()
	j := Judgement{SLO: judgeSLOs(s, slos, c.Strict, c.Sequential)}
	// The checks and Binding read what was decided before them from a
	// step: from a copy, into which the judgement is written as it grows.
	// The copy shares s's maps and histograms, which they only read.
	judged := *s
	j.Apply(&judged)
	sev := stepEvidence{Evidence: ev, expectedHitRate: c.ExpectedPrefixHitRate,
		meanOutput: c.MeanOutputTokens, lengthsAdvisory: c.LengthsAdvisory, inProcessServer: c.InProcessServer, slos: slos, strict: c.Strict}
	if c.Baseline != nil {
		switch seq := c.Sequential; {
		case seq == nil:
			j.Baseline, j.BaselineErr = CompareBaseline(c.Baseline, &judged, c.BaselinePaired, c.BaselineTolerance)
		case seq.BaselineLevel > 0:
			j.Baseline, j.BaselineErr = compareBaseline(c.Baseline, &judged, c.BaselinePaired, c.BaselineTolerance, seq.BaselineLevel, true)
		default:
			j.Baseline = slices.Clone(seq.Settled)
		}
		sev.baseline = baselineTrend(c, s, th)
	}
	j.OverCapacity = overCapacity(&judged, sev, th)
	j.Apply(&judged)
	sev.passing = j.OverCapacity == nil && len(Regressions(j.Baseline)) == 0
	for _, r := range j.SLO {
		sev.passing = sev.passing && r.Pass
	}
	j.Hazards, j.Notes = findHazards(&judged, sev, th)
	j.HazardsOff = append([]string(nil), th.Off...)
	j.NotJudged = notJudged(&judged, ev, c)
	j.Verdict = verdictOf(j)
	j.hazardsToNotes()
	j.Apply(&judged)
	j.Binding = Binding(&judged, c.MaxNumSeqs)
	return j
}

// JudgeSLOs decides only the SLO results and the verdict, for a step whose
// hazards cannot be judged (a closed loop has no schedule to keep): its
// judgement holds no hazards, notes, overload or binding. s is left as it
// was.
func JudgeSLOs(s *report.StepReport, c Criteria) Judgement {
	j := Judgement{SLO: judgeSLOs(s, Guarded(c.SLOs), c.Strict, c.Sequential)}
	j.Verdict = verdictOf(j)
	return j
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

package load

import "time"

// CIConfidence is the confidence of the intervals the report gives.
const CIConfidence = 0.95

// stepReport summarises what the recorder holds; SLOs and hazards are
// judged by judge.
func (r *Recorder) stepReport() (StepReport, stepEvidence) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := StepReport{
		Requests: RequestCounts{
			Sent: r.sent, Completed: r.completed, Failed: r.failed, Canceled: r.canceled,
			Unfinished: r.unfinished, Dropped: r.dropped, Good: r.good,
		},
		Errors:   map[string]int{},
		TTFT:     r.ttft.Summary(),
		TTFTSend: r.ttftSend.Summary(),
		ITL:      r.itl.Summary(),
		TPOT:     r.tpot.Summary(),
		E2EL:     r.e2el.Summary(),
		SendLag:  r.lag.Summary(),
		Tokens: TokenCounts{
			Input: r.inputTokens, Output: r.outputTokens,
			Events: r.tokenEvents, MultiEvents: r.multiTokenEvents, UsageMissing: r.usageMissing,
		},
		LengthMismatches: r.lengthMismatched,
		Timeline:         append([]Second(nil), r.timeline...),
		hists: map[Metric]*Histogram{
			MetricTTFT: r.ttft, MetricTTFTSend: r.ttftSend, MetricITL: r.itl,
			MetricTPOT: r.tpot, MetricE2EL: r.e2el,
		},
	}
	for c, n := range r.classes {
		s.Errors[string(c)] = n
	}
	ev := stepEvidence{
		ttftFirstHalfP50:  r.ttftFirstHalf.Quantile(50),
		ttftSecondHalfP50: r.ttftSecondHalf.Quantile(50),
		firstHalfN:        r.ttftFirstHalf.Count(),
		secondHalfN:       r.ttftSecondHalf.Count(),
		lengthChecked:     r.lengthChecked,
	}
	if r.sent >= 2 {
		if span := r.lastSend.Sub(r.firstSend); span > 0 {
			s.RateAchieved = float64(r.sent-1) / span.Seconds()
		}
		if span := r.lastSlot.Sub(r.firstSlot); span > 0 {
			ev.scheduleRate = float64(r.sent-1) / span.Seconds()
		}
	}
	return s, ev
}

// errorRate is the fraction of the requests the server was left to answer
// that failed or did not finish; those the caller cancelled are not counted.
func errorRate(s *StepReport) float64 {
	judged := s.Requests.Sent - s.Requests.Canceled
	if judged <= 0 {
		return 0
	}
	return float64(s.Requests.Failed+s.Requests.Unfinished) / float64(judged)
}

// judgeSLOs checks every SLO against the step. In strict mode a latency SLO
// passes only when the upper end of its 95% interval is within the limit.
func judgeSLOs(s *StepReport, slos []SLO, strict bool) []SLOResult {
	out := make([]SLOResult, 0, len(slos))
	for _, slo := range slos {
		if slo.Metric == MetricErrorRate {
			er := errorRate(s)
			out = append(out, SLOResult{
				Metric: string(slo.Metric), MaxRate: slo.MaxRate, Observed: er,
				Samples: int64(s.Requests.Sent - s.Requests.Canceled), Conclusive: true, Pass: er <= slo.MaxRate,
			})
			continue
		}
		out = append(out, judgeLatency(s.hists[slo.Metric], slo, strict))
	}
	return out
}

func judgeLatency(h *Histogram, slo SLO, strict bool) SLOResult {
	res := SLOResult{
		Metric: string(slo.Metric), Percentile: slo.Percentile, LimitMs: ms(slo.Limit),
		NeededSamples: MinSamplesForCI(slo.Percentile, CIConfidence),
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

// perRequestLimits derives goodput's per-request limits from the latency
// SLOs on TTFT, TPOT and E2EL.
func perRequestLimits(slos []SLO) PerRequestLimits {
	var l PerRequestLimits
	set := func(d *time.Duration, v time.Duration) {
		if *d == 0 || v < *d {
			*d = v
		}
	}
	for _, s := range slos {
		switch s.Metric {
		case MetricTTFT:
			set(&l.TTFT, s.Limit)
		case MetricTPOT:
			set(&l.TPOT, s.Limit)
		case MetricE2EL:
			set(&l.E2EL, s.Limit)
		}
	}
	return l
}

// verdictOf: any hazard makes a step invalid; otherwise any failed SLO
// fails it.
func verdictOf(s *StepReport) Verdict {
	if len(s.Hazards) > 0 {
		return VerdictInvalid
	}
	for _, r := range s.SLO {
		if !r.Pass {
			return VerdictFail
		}
	}
	return VerdictPass
}

// Judge checks one SLO against the step, as the step's own SLOs were.
func (s *StepReport) Judge(slo SLO, strict bool) SLOResult {
	return judgeSLOs(s, []SLO{slo}, strict)[0]
}

// HasHazard reports whether the step has a hazard of the kind.
func (s *StepReport) HasHazard(kind string) bool {
	for _, h := range s.Hazards {
		if h.Kind == kind {
			return true
		}
	}
	return false
}

// finish fills what a step's report derives from its counts and judges it:
// goodput over the requests that were due, throughput over the time the
// step ran, then SLOs, hazards (nil evidence: none are judged) and verdict.
func (s *StepReport) finish(due int, window time.Duration, p *Plan, ev *stepEvidence) {
	if window > 0 {
		s.Tokens.OutputPerS = float64(s.Tokens.Output) / window.Seconds()
	}
	if due > 0 {
		s.Goodput = float64(s.Requests.Good) / float64(due)
	}
	s.SLO = judgeSLOs(s, p.SLOs, p.Strict)
	if ev != nil {
		ev.expectedHitRate = p.ExpectedPrefixHitRate
		ev.slos = p.SLOs
		s.Hazards = findHazards(s, *ev, p.Thresholds)
	}
	s.Verdict = verdictOf(s)
}

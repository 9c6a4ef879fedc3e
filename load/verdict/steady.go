package verdict

import (
	"fmt"

	"github.com/llmslo/llmslo/load/report"
)

// minWaitingRise is how much the waiting queue must have grown over the
// step's second half for a rising slope to count: one request more is noise.
const minWaitingRise = 2

// overCapacity says whether the server ran past its capacity: arrivals
// outpaced what it admitted, which no step length cures. That is the
// server's limit, not a measurement to distrust, so the step fails
// (docs/verdicts.md). The evidence is one of
//
//   - its waiting queue grew through the window's second half faster than
//     MaxWaitingSlope and by minWaitingRise requests at least;
//   - it was saturated through the window (a request waiting in
//     saturatedShare of its samples, so it admitted as fast as it could)
//     and still held more requests at the end than at the start, by
//     minWaitingRise and overloadShare of the window's arrivals at least:
//     arrivals, an exact count of the schedule, outpaced completions. A
//     queue's level is a random walk near the knee and its slope says
//     little in a short window; this count does not wander;
//   - the delay it added rose as a trend through the window (delayTrend)
//     while requests still waited at its end and the requests it held
//     grew over the window.
//
// Growth must be growth: a server holding fewer requests at the end than
// at the start is draining, whatever else rose on the way. It needs
// /metrics, and it is judged with not_steady's thresholds and turned off
// with it.
func overCapacity(s *report.StepReport, ev stepEvidence, th Thresholds) *report.OverCapacity {
	srv := s.Server
	if th.IsOff(HazardNotSteady) || th.MaxWaitingSlope <= 0 || !srv.MetricsAvailable {
		return nil
	}
	if srv.WaitingSlopePerS > th.MaxWaitingSlope && srv.WaitingRise >= minWaitingRise {
		return &report.OverCapacity{
			GrowthPerS: srv.WaitingSlopePerS, Rise: srv.WaitingRise,
			Message: fmt.Sprintf("over capacity: the server's waiting queue grew by %.1f requests across the samples of the window's second half "+
				"(%.0f waiting at the end): arrivals outpace completions by %.2f req/s, so any TTFT SLO breaks given time",
				srv.WaitingRise, srv.WaitingAtEnd, srv.WaitingSlopePerS),
		}
	}
	if srv.WaitingAtEnd < minWaitingRise || srv.InSystemGrowth < minWaitingRise || s.DurationS <= 0 {
		return nil
	}
	growth := srv.InSystemGrowth / s.DurationS
	held := fmt.Sprintf("the server held %.0f requests more at the end of the window than at its start (%.0f waiting at the end)",
		srv.InSystemGrowth, srv.WaitingAtEnd)
	if srv.QueuedShare >= saturatedShare && srv.InSystemGrowth >= overloadShare*float64(ev.Due) {
		return &report.OverCapacity{
			GrowthPerS: growth, Rise: srv.InSystemGrowth,
			Message: fmt.Sprintf("over capacity: requests waited in %.0f%% of the window's samples, so the server admitted as fast as it could, "+
				"and still %s, of %d arrivals: arrivals outpace completions by %.2f req/s, so any TTFT SLO breaks given time",
				100*srv.QueuedShare, held, ev.Due, growth),
		}
	}
	tr, ok := delayTrend(s, ev.TTFTBlocks, th)
	if !ok || !tr.decisive {
		return nil
	}
	return &report.OverCapacity{
		GrowthPerS: growth, Rise: srv.InSystemGrowth,
		Message: fmt.Sprintf("over capacity: %s, and %s: arrivals outpace completions by %.2f req/s, so any TTFT SLO breaks given time",
			tr.describe(), held, growth),
	}
}

// saturatedShare is the share of a window's samples with a request waiting
// from which the server counts as saturated through it; overloadShare the
// share of the window's arrivals it must have gained then. At 1.15 times a
// small server's capacity every one of 40 runs showed both (a growth of 9
// to 17 requests of 100); at 0.92 times it, 13 of 40.
const (
	saturatedShare = 0.9
	overloadShare  = 0.05
)

// notSteady finds a step whose server-added delay was still rising through
// the window with no growing queue to call it over capacity: a trend on
// which a pass cannot rest, since a longer run would have measured more.
// Like every hazard it decides only what it could have changed: a step
// that failed or regressed anyway would only fail worse given time, and a
// trend that the paired baseline's same step shows too is the trace's
// shape (the same requests in the same order), not the server's.
func notSteady(s *report.StepReport, ev stepEvidence, th Thresholds) finding {
	tr, ok := delayTrend(s, ev.TTFTBlocks, th)
	if !ok || !tr.decisive {
		return finding{}
	}
	h := report.Hazard{
		Kind: HazardNotSteady,
		Fix:  "lengthen the step (and the warm-up) until the delay stops rising; at this rate the server may be past its capacity",
	}
	switch {
	case !ev.passing:
		h.Message = "the delay was still rising through the window: " + tr.describe() +
			"; a longer step could only have measured worse, so it did not decide a step that failed or regressed"
		return finding{seen: true, Hazard: h}
	case ev.baseline != nil && ev.baseline.decisive:
		h.Message = "the delay rose through the window (" + tr.describe() + "), and alike in the paired baseline's same step (" +
			ev.baseline.describe() + "): the same requests in the same order make the same shape, so it is the trace's, not the server's"
		return finding{seen: true, Hazard: h}
	}
	h.Message = "the step met its SLOs before reaching a steady state: " + tr.describe()
	if s.Server.MetricsAvailable {
		h.Message += fmt.Sprintf("; no growing queue explains it (%.0f waiting at the end, growing %.2f requests/s)",
			s.Server.WaitingAtEnd, s.Server.WaitingSlopePerS)
	}
	return finding{seen: true, decides: true, Hazard: h}
}

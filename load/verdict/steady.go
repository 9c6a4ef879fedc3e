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
// (docs/verdicts.md). The evidence is either
//
//   - its waiting queue grew through the window's second half faster than
//     MaxWaitingSlope and by minWaitingRise requests at least; or
//   - the delay the server added rose through the window (a trend, see
//     delayTrend) while requests still waited at its end and the requests
//     in flight grew: at a rate just past the knee the queue's growth is
//     slow beside its noise, but the wait it adds shows in every request.
//
// It needs /metrics, and it is judged with not_steady's thresholds and
// turned off with it.
func overCapacity(s *report.StepReport, ev stepEvidence, th Thresholds) *report.Overload {
	srv := s.Server
	if th.IsOff(HazardNotSteady) || th.MaxWaitingSlope <= 0 || !srv.MetricsAvailable {
		return nil
	}
	if srv.WaitingSlopePerS > th.MaxWaitingSlope && srv.WaitingRise >= minWaitingRise {
		return &report.Overload{
			GrowthPerS: srv.WaitingSlopePerS, Rise: srv.WaitingRise,
			Message: fmt.Sprintf("over capacity: the server's waiting queue grew by %.1f requests across the samples of the window's second half "+
				"(%.0f waiting at the end): arrivals outpace completions by %.2f req/s, so any TTFT SLO breaks given time",
				srv.WaitingRise, srv.WaitingAtEnd, srv.WaitingSlopePerS),
		}
	}
	tr, ok := delayTrend(s, ev.TTFTBlocks, th)
	if !ok || !tr.decisive || srv.WaitingAtEnd < minWaitingRise {
		return nil
	}
	// Growth must be growth: a queue that ends the window shrinking is
	// draining, whatever the delay did on the way.
	growth := inFlightSlope(s.Timeline, int(s.DurationS))
	if growth <= 0 {
		return nil
	}
	return &report.Overload{
		GrowthPerS: growth, Rise: srv.WaitingRise,
		Message: fmt.Sprintf("over capacity: %s, while %.0f requests still waited at the end of the window and the requests in flight "+
			"grew by %.2f a second over its second half: arrivals outpace completions, so any TTFT SLO breaks given time",
			tr.describe(), srv.WaitingAtEnd, growth),
	}
}

// inFlightSlope is the least-squares slope, per second, of the requests
// the client had in flight at the end of each second of the window's
// second half (sent by then, by intended time, less those ended by then):
// arrivals less completions.
func inFlightSlope(tl []report.Second, secs int) float64 {
	secs = min(secs, len(tl))
	if secs < 4 {
		return 0
	}
	var in int
	var sx, sy, sxx, sxy, n float64
	for i := range secs {
		in += tl[i].Sent - tl[i].Completed - tl[i].Failed
		if i < secs/2 {
			continue
		}
		x, y := float64(i), float64(in)
		sx, sy, sxx, sxy, n = sx+x, sy+y, sxx+x*x, sxy+x*y, n+1
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / den
}

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
		h.Message = "the server's delay was still rising through the window (" + tr.describe() +
			"), which could only have made a longer step worse: it did not decide a step that failed or regressed"
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

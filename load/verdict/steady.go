package verdict

import (
	"fmt"
	"strings"

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
//   - TTFT rose through the window (not_steady's trend) while requests
//     still waited at its end: the queue explains the rise. At a rate just
//     past the knee the queue's growth is slow beside its noise, but the
//     wait it adds shows in TTFT.
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
	rise, ok := ttftRise(ev, th)
	if !ok || srv.WaitingAtEnd < minWaitingRise {
		return nil
	}
	growth := inFlightSlope(s.Timeline, int(s.DurationS))
	return &report.Overload{
		GrowthPerS: growth, Rise: srv.WaitingRise,
		Message: fmt.Sprintf("over capacity: %s while %.0f requests still waited at the end of the window: the queue explains the rise "+
			"(requests in flight grew by %.2f a second over its second half), so arrivals outpace completions and any TTFT SLO breaks given time",
			rise, srv.WaitingAtEnd, growth),
	}
}

// ttftRise reports not_steady's trend: TTFT p50 of the window's second
// half over its first half's above MaxTTFTHalfRatio, and MinTTFTRise
// slower, with MinHalfSamples requests in each half.
func ttftRise(ev stepEvidence, th Thresholds) (string, bool) {
	if th.MaxTTFTHalfRatio <= 0 || ev.FirstHalfN < int64(th.MinHalfSamples) ||
		ev.SecondHalfN < int64(th.MinHalfSamples) || ev.TTFTFirstHalfP50 <= 0 {
		return "", false
	}
	r := float64(ev.TTFTSecondHalfP50) / float64(ev.TTFTFirstHalfP50)
	if r <= th.MaxTTFTHalfRatio || ev.TTFTSecondHalfP50-ev.TTFTFirstHalfP50 < th.MinTTFTRise {
		return "", false
	}
	return fmt.Sprintf("TTFT p50 rose from %.1f ms in the first half to %.1f ms in the second (×%.2f, limit ×%.2f)",
		ms(ev.TTFTFirstHalfP50), ms(ev.TTFTSecondHalfP50), r, th.MaxTTFTHalfRatio), true
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

// notSteady finds a passing step whose TTFT was still rising through the
// window with no growing queue to explain it (that is overCapacity): a
// trend it cannot attribute, on which a pass cannot rest. A failing step
// fails; steadiness matters only for a pass.
func notSteady(s *report.StepReport, ev stepEvidence, th Thresholds) finding {
	if !ev.passing {
		return finding{}
	}
	rise, ok := ttftRise(ev, th)
	if !ok {
		return finding{}
	}
	why := []string{rise}
	if s.Server.MetricsAvailable {
		why = append(why, fmt.Sprintf("no queue explains it (%.0f waiting at the end, growing %.2f requests/s)",
			s.Server.WaitingAtEnd, s.Server.WaitingSlopePerS))
	}
	return finding{seen: true, decides: true, Hazard: report.Hazard{
		Kind:    HazardNotSteady,
		Message: "the step passed before reaching a steady state: " + strings.Join(why, "; "),
		Fix:     "lengthen the step (and the warm-up) until TTFT stops rising; at this rate the server may be past its capacity",
	}}
}

package verdict

import (
	"fmt"
	"strings"

	"github.com/llmslo/llmslo/report"
)

// minWaitingRise is how much the waiting queue must have grown over the
// step's second half for a rising slope to count: one request more is noise.
const minWaitingRise = 2

// overCapacity says whether the server's waiting queue grew through the
// window's second half faster than MaxWaitingSlope and by minWaitingRise
// requests at least: arrivals outpaced what the server admitted, which no
// step length cures. That is the server's limit, not a measurement to
// distrust, so the step fails (docs/verdicts.md). It needs /metrics, and
// it is judged with not_steady's thresholds and turned off with it.
func overCapacity(s *report.StepReport, th Thresholds) *report.Overload {
	srv := s.Server
	if th.IsOff(HazardNotSteady) || th.MaxWaitingSlope <= 0 || !srv.MetricsAvailable ||
		srv.WaitingSlopePerS <= th.MaxWaitingSlope || srv.WaitingRise < minWaitingRise {
		return nil
	}
	return &report.Overload{
		GrowthPerS: srv.WaitingSlopePerS, Rise: srv.WaitingRise,
		Message: fmt.Sprintf("over capacity: the server's waiting queue grew by %.1f requests over the second half of the window "+
			"(%.0f waiting at the end): arrivals outpace completions by %.2f req/s, so any TTFT SLO breaks given time",
			srv.WaitingRise, srv.WaitingAtEnd, srv.WaitingSlopePerS),
	}
}

// notSteady finds a passing step whose TTFT was still rising through the
// window with no growing queue to explain it (that is overCapacity): a
// trend it cannot attribute, on which a pass cannot rest. A failing step
// fails; steadiness matters only for a pass.
func notSteady(s *report.StepReport, ev stepEvidence, th Thresholds) finding {
	if !ev.passing || th.MaxTTFTHalfRatio <= 0 || ev.FirstHalfN < int64(th.MinHalfSamples) ||
		ev.SecondHalfN < int64(th.MinHalfSamples) || ev.TTFTFirstHalfP50 <= 0 {
		return finding{}
	}
	r := float64(ev.TTFTSecondHalfP50) / float64(ev.TTFTFirstHalfP50)
	if r <= th.MaxTTFTHalfRatio || ev.TTFTSecondHalfP50-ev.TTFTFirstHalfP50 < th.MinTTFTRise {
		return finding{}
	}
	why := []string{fmt.Sprintf("TTFT p50 rose from %.1f ms in the first half to %.1f ms in the second (×%.2f, limit ×%.2f)",
		ms(ev.TTFTFirstHalfP50), ms(ev.TTFTSecondHalfP50), r, th.MaxTTFTHalfRatio)}
	if s.Server.MetricsAvailable {
		why = append(why, fmt.Sprintf("the waiting queue did not grow enough to say the server was over capacity (%.2f requests/s, a rise of %.1f)",
			s.Server.WaitingSlopePerS, s.Server.WaitingRise))
	}
	return finding{seen: true, decides: true, Hazard: report.Hazard{
		Kind:    HazardNotSteady,
		Message: "the step passed before reaching a steady state: " + strings.Join(why, "; "),
		Fix:     "lengthen the step (and the warm-up) until TTFT stops rising; at this rate the server may be past its capacity",
	}}
}

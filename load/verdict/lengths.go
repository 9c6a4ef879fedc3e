package verdict

import (
	"fmt"

	"github.com/llmslo/llmslo/load/report"
)

// lengthMismatch finds a server that generated or read other lengths than
// asked: it ran another workload. That can turn a failure into a pass
// (less work) or a pass into a failure (more), so it makes a passing step
// invalid, and a failing one when some requests were longer than asked.
// A failure on requests that were all shorter than asked, less work than
// the workload's, stands: it is a note. Outputs that ended early count
// here unless the server's lengths were declared advisory; then they are
// judged as given, and lighterThanAsked says what they took off the load.
func lengthMismatch(s *report.StepReport, ev stepEvidence, th Thresholds) finding {
	if th.MaxMismatchFraction <= 0 || ev.LengthChecked == 0 {
		return finding{}
	}
	f := float64(s.LengthMismatches) / float64(ev.LengthChecked)
	if f <= th.MaxMismatchFraction {
		return lighterThanAsked(s, ev, th)
	}
	decides := ev.passing || ev.LengthLonger > 0
	h := report.Hazard{
		Kind: HazardLengthMismatch,
		Message: fmt.Sprintf("%d of %d requests (%.1f%%) came back with prompt or output lengths more than %.0f%% off what the workload asked for",
			s.LengthMismatches, ev.LengthChecked, 100*f, 100*th.LengthTolerance),
		Fix: "make the server honour the lengths (ignore_eos and min_tokens must be accepted; check --max-model-len and the tokenizer), or the workload is not the one you meant to test; " +
			"a server that stops at EOS whatever ignore_eos says is declared with --lengths-advisory (slotest.WithLengthsAdvisory) to judge the outputs it gives",
	}
	switch {
	case ev.LengthLonger > 0:
		h.Message += fmt.Sprintf(" (%d with more tokens than asked)", ev.LengthLonger)
	case !decides:
		h.Message += "; every one was shorter than asked, less work than the workload's, so the failure stands"
		h.Fix = ""
	}
	return finding{Hazard: h, seen: true, decides: decides}
}

// lighterThanAsked notes a step on a server whose lengths were declared
// advisory whose outputs came back short, in the share and by the size
// that make a mismatch: it can pass, but on a lighter workload than asked.
func lighterThanAsked(s *report.StepReport, ev stepEvidence, th Thresholds) finding {
	if !ev.lengthsAdvisory {
		return finding{}
	}
	f := float64(s.LengthEndedEarly) / float64(ev.LengthChecked)
	if f <= th.MaxMismatchFraction {
		return finding{}
	}
	msg := fmt.Sprintf("the workload was lighter than asked: %d of %d requests (%.1f%%) ended more than %.0f%% short of the output length asked",
		s.LengthEndedEarly, ev.LengthChecked, 100*f, 100*th.LengthTolerance)
	if n := float64(ev.OutputRequests); n > 0 {
		msg += fmt.Sprintf(", %.1f output tokens a request given for %.1f asked", float64(ev.OutputGiven)/n, float64(ev.OutputAsked)/n)
	}
	msg += "; the server's lengths were declared advisory, so its outputs were judged as given"
	return finding{Hazard: report.Hazard{Kind: HazardLengthMismatch, Message: msg}, seen: true}
}

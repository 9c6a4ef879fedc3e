package verdict

import (
	"fmt"
	"slices"

	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
)

// Checks a step can be unable to make (report.NotJudged's Check).
const (
	CheckOverCapacity = "over_capacity"
	CheckBinding      = "binding"
	CheckLengths      = "lengths"
	CheckOutputLength = "output_length"
)

// notJudged lists what the step's evidence could not show. A server
// without vLLM's /metrics has no queue to show it over capacity, no
// prefix-cache counters for warm_cache (unless its usage reports
// cached_tokens) and nothing to name what binds it; a server that reports
// no usage has lengths nobody can check; one whose lengths were declared
// advisory is not held to its output lengths. Each is said, never taken
// as fine.
func notJudged(s *report.StepReport, ev observe.Evidence, c Criteria) []report.NotJudged {
	var out []report.NotJudged
	if !s.Server.MetricsAvailable {
		why := "the server exposes no metrics"
		if s.Server.Samples == 0 && s.Server.Error == "" {
			why = "no server metrics were read for this step"
		}
		if s.PromptCache.Requests == 0 && !slices.Contains(c.Thresholds.Off, HazardWarmCache) {
			out = append(out, report.NotJudged{Check: HazardWarmCache,
				Reason: why + ", and its usage reports no cached_tokens: a warm prefix cache cannot be seen"})
		}
		out = append(out,
			report.NotJudged{Check: CheckOverCapacity, Reason: why + ": no waiting queue to show the step past its capacity; only the SLOs can fail it"},
			report.NotJudged{Check: CheckBinding, Reason: why + ": what binds the server cannot be named"})
	}
	if s.Requests.Completed > 0 && ev.LengthChecked == 0 {
		out = append(out, report.NotJudged{Check: CheckLengths,
			Reason: "the server reported no usage, so the prompt and output lengths it served could not be checked"})
	}
	if c.LengthsAdvisory && ev.LengthChecked > 0 {
		out = append(out, report.NotJudged{Check: CheckOutputLength,
			Reason: fmt.Sprintf("the server's output lengths were declared advisory (it stops at EOS whatever ignore_eos says): %d of %d requests ended early and were judged as given; only outputs longer than asked count as a mismatch",
				s.LengthEndedEarly, ev.LengthChecked)})
	}
	return out
}

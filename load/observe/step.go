package observe

import (
	"slices"
	"time"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// windowRate is the achieved rate over a window of length d: what was
// sent within it over its length. It is an exact count over the span the
// schedule named, so a reader can check it against the count due, and it
// is not biased on a short random schedule as (n−1)/span between the
// first and last send is (about 1/n high).
func windowRate(sent int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(sent) / d.Seconds()
}

// windowCounts copies the window's exact counts (report.StepEvidence).
// Call it with r.mu held.
func (r *Recorder) windowCounts() (due, sentInWindow int, duePerS, sentPerS []int) {
	return r.due, r.sentInWindow, append([]int(nil), r.duePerS...), append([]int(nil), r.sentPerS...)
}

// Evidence is what the hazard checks read besides the step report.
type Evidence struct {
	TTFTFirstHalfP50  time.Duration
	TTFTSecondHalfP50 time.Duration
	FirstHalfN        int64
	SecondHalfN       int64
	LengthChecked     int // completed requests whose lengths were checked
	LengthLonger      int // of the mismatches, those with more tokens than asked
	// OutputAsked and OutputGiven sum the output tokens asked and given
	// over the OutputRequests checked requests that asked a length.
	OutputAsked, OutputGiven int64
	OutputRequests           int
	// Due, SentInWindow, DuePerS and SentPerS are the window's exact
	// counts (report.StepEvidence); SendLag the lag of every measured send.
	Due, SentInWindow int
	DuePerS, SentPerS []int
	SendLag           *stats.Histogram
	// TTFTBlocks are the window's blocks of completed requests
	// (report.StepEvidence.TTFTBlocks).
	TTFTBlocks []report.TTFTBlock
}

// Summary summarises what the recorder holds as a step report, with the
// evidence the hazard checks read besides it. The caller names the step,
// adds server and client figures, and has it judged (package verdict).
func (r *Recorder) Summary() (report.StepReport, Evidence) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := report.StepReport{
		Requests: report.RequestCounts{
			Sent: r.sent, Completed: r.completed, Failed: r.failed, Canceled: r.canceled,
			Unfinished: r.unfinished, Dropped: r.dropped, Good: r.good, Abandoned: r.abandoned, Shed: r.shed,
		},
		Errors:    map[string]int{},
		TTFT:      r.ttft.Summary(),
		TTFTSend:  r.ttftSend.Summary(),
		ITL:       r.itl.Summary(),
		TPOT:      r.tpot.Summary(),
		E2EL:      r.e2el.Summary(),
		SendLag:   r.lag.Summary(),
		BodyWrite: r.bodyWrite.Summary(),
		Tokens: report.TokenCounts{
			Input: r.inputTokens, Output: r.outputTokens,
			Events: r.tokenEvents, MultiEvents: r.multiTokenEvents, UsageMissing: r.usageMissing,
		},
		LengthMismatches: r.lengthMismatched,
		LengthEndedEarly: r.lengthEndedEarly,
		PromptCache:      report.PromptCache{Requests: r.cachedRequests, CachedTokens: r.cachedPrompt, PromptTokens: r.cachedOf},
		Timeline:         append([]report.Second(nil), r.timeline...),
		Histograms: map[report.Metric]*stats.Histogram{
			report.MetricTTFT: r.ttft, report.MetricTTFTSend: r.ttftSend, report.MetricITL: r.itl,
			report.MetricTPOT: r.tpot, report.MetricE2EL: r.e2el, report.MetricE2ELSend: r.e2elSend,
		},
		Clusters: map[report.Metric]*stats.Clusters{
			report.MetricTTFT: r.ttftC, report.MetricTTFTSend: r.ttftSendC, report.MetricITL: r.itlC,
			report.MetricTPOT: r.tpotC, report.MetricE2EL: r.e2elC, report.MetricE2ELSend: r.e2elSendC,
		},
	}
	for c, n := range r.classes {
		s.Errors[string(c)] = n
	}
	s.ErrorMessages = r.messages.Report()
	s.Shed = s.Requests.ShedShare()
	if s.Shed != nil {
		t := r.shedTime.Summary()
		s.ShedTime = &t
	}
	ev := Evidence{
		TTFTFirstHalfP50:  r.ttftFirstHalf.Quantile(50),
		TTFTSecondHalfP50: r.ttftSecondHalf.Quantile(50),
		FirstHalfN:        r.ttftFirstHalf.Count(),
		SecondHalfN:       r.ttftSecondHalf.Count(),
		LengthChecked:     r.lengthChecked,
		LengthLonger:      r.lengthLonger,
		OutputAsked:       r.outputAsked,
		OutputGiven:       r.outputGiven,
		OutputRequests:    r.outputRequests,
		SendLag:           r.lag,
		TTFTBlocks:        slices.Clone(r.ttftBlocks),
	}
	ev.Due, ev.SentInWindow, ev.DuePerS, ev.SentPerS = r.windowCounts()
	// Throughput over the time the step really ran: from its first send to
	// its last request's end (a completion, a failure, or the drain bound).
	if span := r.lastEnd.Sub(r.firstSend); span > 0 && !r.firstSend.IsZero() {
		s.Tokens.OutputPerS = float64(r.outputTokens) / span.Seconds()
	}
	s.RateAchieved = windowRate(r.sentInWindow, r.end.Sub(r.measureFrom))
	return s, ev
}

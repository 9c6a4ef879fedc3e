package observe

import (
	"time"

	"github.com/llmslo/llmslo/report"
	"github.com/llmslo/llmslo/stats"
)

// Evidence is what the hazard checks read besides the step report.
type Evidence struct {
	ScheduleRate      float64 // the schedule's own rate over the slots that were sent
	TTFTFirstHalfP50  time.Duration
	TTFTSecondHalfP50 time.Duration
	FirstHalfN        int64
	SecondHalfN       int64
	LengthChecked     int // completed requests whose lengths were checked
}

// Step summarises what the recorder holds as a step report, with the
// evidence the hazard checks read besides it. The caller names the step,
// adds server and client figures, and has it judged (package verdict).
func (r *Recorder) Step() (report.StepReport, Evidence) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := report.StepReport{
		Requests: report.RequestCounts{
			Sent: r.sent, Completed: r.completed, Failed: r.failed, Canceled: r.canceled,
			Unfinished: r.unfinished, Dropped: r.dropped, Good: r.good, Abandoned: r.abandoned,
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
		PromptCache:      report.PromptCache{Requests: r.cachedRequests, CachedTokens: r.cachedPrompt, PromptTokens: r.cachedOf},
		Timeline:         append([]report.Second(nil), r.timeline...),
		Histograms: map[report.Metric]*stats.Histogram{
			report.MetricTTFT: r.ttft, report.MetricTTFTSend: r.ttftSend, report.MetricITL: r.itl,
			report.MetricTPOT: r.tpot, report.MetricE2EL: r.e2el,
		},
		Clusters: map[report.Metric]*stats.Clusters{
			report.MetricTTFT: r.ttftC, report.MetricTTFTSend: r.ttftSendC, report.MetricITL: r.itlC,
			report.MetricTPOT: r.tpotC, report.MetricE2EL: r.e2elC,
		},
	}
	for c, n := range r.classes {
		s.Errors[string(c)] = n
	}
	s.ErrorMessages = r.messages.Report()
	ev := Evidence{
		TTFTFirstHalfP50:  r.ttftFirstHalf.Quantile(50),
		TTFTSecondHalfP50: r.ttftSecondHalf.Quantile(50),
		FirstHalfN:        r.ttftFirstHalf.Count(),
		SecondHalfN:       r.ttftSecondHalf.Count(),
		LengthChecked:     r.lengthChecked,
	}
	// Throughput over the time the step really ran: from its first send to
	// its last request's end (a completion, a failure, or the drain bound).
	if span := r.lastEnd.Sub(r.firstSend); span > 0 && !r.firstSend.IsZero() {
		s.Tokens.OutputPerS = float64(r.outputTokens) / span.Seconds()
	}
	if r.sent >= 2 {
		if span := r.lastSend.Sub(r.firstSend); span > 0 {
			s.RateAchieved = float64(r.sent-1) / span.Seconds()
		}
		if span := r.lastSlot.Sub(r.firstSlot); span > 0 {
			ev.ScheduleRate = float64(r.sent-1) / span.Seconds()
		}
	}
	return s, ev
}

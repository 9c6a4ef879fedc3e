package observe

import (
	"slices"
	"time"

	"github.com/llmslo/llmslo/load/report"
)

// ReportEvidence is the step's evidence as the report keeps it: spans as
// offsets from the measured window's start, and the histograms behind the
// hazard checks, so that a report read back (a shard's) can be merged with
// others and judged again (EvidenceOf). Call it after the step, as Step.
func (r *Recorder) ReportEvidence() *report.StepEvidence {
	r.mu.Lock()
	defer r.mu.Unlock()
	at := func(t time.Time) float64 {
		if t.IsZero() {
			return 0
		}
		return float64(t.Sub(r.measureFrom)) / float64(time.Millisecond)
	}
	ev := &report.StepEvidence{
		FirstSendMs:    at(r.firstSend),
		LastEndMs:      at(r.lastEnd),
		LengthChecked:  r.lengthChecked,
		LengthLonger:   r.lengthLonger,
		OutputAsked:    r.outputAsked,
		OutputGiven:    r.outputGiven,
		OutputRequests: r.outputRequests,
		TTFTFirstHalf:  r.ttftFirstHalf,
		TTFTSecondHalf: r.ttftSecondHalf,
		SendLag:        r.lag,
		BodyWrite:      r.bodyWrite,
		TTFTBlocks:     slices.Clone(r.ttftBlocks),
	}
	ev.Due, ev.SentInWindow, ev.DuePerS, ev.SentPerS = r.windowCounts()
	return ev
}

// EvidenceOf rebuilds the hazard checks' Evidence from a step report's
// Evidence block and counts, by the same definitions as Step: for a step
// merged from shards, from the merged spans and histograms. ok is false
// when the step has no evidence block (a report from before it existed).
func EvidenceOf(s *report.StepReport) (ev Evidence, ok bool) {
	e := s.Evidence
	if e == nil {
		return Evidence{}, false
	}
	ev.LengthChecked, ev.LengthLonger = e.LengthChecked, e.LengthLonger
	ev.OutputAsked, ev.OutputGiven, ev.OutputRequests = e.OutputAsked, e.OutputGiven, e.OutputRequests
	ev.Due, ev.SentInWindow = e.Due, e.SentInWindow
	ev.DuePerS, ev.SentPerS, ev.SendLag = e.DuePerS, e.SentPerS, e.SendLag
	ev.TTFTBlocks = e.TTFTBlocks
	if h := e.TTFTFirstHalf; h != nil {
		ev.TTFTFirstHalfP50, ev.FirstHalfN = h.Quantile(50), h.Count()
	}
	if h := e.TTFTSecondHalf; h != nil {
		ev.TTFTSecondHalfP50, ev.SecondHalfN = h.Quantile(50), h.Count()
	}
	return ev, true
}

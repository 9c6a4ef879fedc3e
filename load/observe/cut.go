package observe

import (
	"time"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// timedTTFT is one completed request's TTFT and prompt length, at its
// intended time from the window's start.
type timedTTFT struct {
	at, ttft time.Duration
	prompt   int64
}

// addToBlock enters t in its half and its trend block.
func (r *Recorder) addToBlock(t timedTTFT) {
	if t.at < r.mid.Sub(r.measureFrom) {
		r.ttftFirstHalf.Record(t.ttft)
	} else {
		r.ttftSecondHalf.Record(t.ttft)
	}
	if r.blockLen > 0 {
		if b := int(t.at / r.blockLen); b >= 0 && b < len(r.ttftBlocks) {
			r.ttftBlocks[b].Add(t.prompt, t.ttft)
		}
	}
}

// Cut ends the measured window at end, before its planned end: a step
// that stopped once its verdict was decided. The halves and trend blocks
// are cut again over the shorter window, and the achieved rate is taken
// over it. Requests already sent stay measured.
func (r *Recorder) Cut(end time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cutLocked(end)
}

func (r *Recorder) cutLocked(end time.Time) {
	if !end.Before(r.end) || !end.After(r.measureFrom) {
		return
	}
	d := end.Sub(r.measureFrom)
	r.end, r.mid, r.blockLen = end, r.measureFrom.Add(d/2), d/report.TrendBlocks
	r.ttftFirstHalf, r.ttftSecondHalf = stats.NewHistogram(), stats.NewHistogram()
	r.ttftBlocks = make([]report.TTFTBlock, report.TrendBlocks)
	for _, t := range r.timed {
		r.addToBlock(t)
	}
}

// Window is the measured window's length: as planned, or as Cut left it.
func (r *Recorder) Window() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.end.Sub(r.measureFrom)
}

// summaryUntil is Summary as if the window ended at end (no later than
// planned): the halves, trend blocks and rate over the shorter window,
// leaving the recorder as it was. The caller must keep Record and Cut
// from running meanwhile (Cohort does), since the report shares the
// recorder's histograms.
func (r *Recorder) summaryUntil(end time.Time) (report.StepReport, Evidence) {
	r.mu.Lock()
	saved := *r.windowState()
	r.cutLocked(end)
	r.mu.Unlock()
	s, ev := r.Summary()
	r.mu.Lock()
	r.restoreWindow(saved)
	r.mu.Unlock()
	return s, ev
}

// windowShape is what Cut changes.
type windowShape struct {
	end, mid                      time.Time
	blockLen                      time.Duration
	ttftFirstHalf, ttftSecondHalf *stats.Histogram
	ttftBlocks                    []report.TTFTBlock
}

func (r *Recorder) windowState() *windowShape {
	return &windowShape{r.end, r.mid, r.blockLen, r.ttftFirstHalf, r.ttftSecondHalf, r.ttftBlocks}
}

func (r *Recorder) restoreWindow(w windowShape) {
	r.end, r.mid, r.blockLen = w.end, w.mid, w.blockLen
	r.ttftFirstHalf, r.ttftSecondHalf, r.ttftBlocks = w.ttftFirstHalf, w.ttftSecondHalf, w.ttftBlocks
}

// measuredCount is how many measured requests have been recorded, sent
// or dropped.
func (r *Recorder) measuredCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sent + r.dropped
}

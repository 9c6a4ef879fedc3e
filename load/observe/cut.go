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

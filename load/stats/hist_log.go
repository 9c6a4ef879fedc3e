package stats

import (
	"fmt"
	"io"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// WriteHDRLog writes histograms in the HdrHistogram interval log format
// (version 1.3), one tagged interval per metric, in nanoseconds as the
// format's tools expect (HistogramLogAnalyzer, hdr-plot). start stamps the
// log; d is the interval every histogram covers.
func WriteHDRLog(w io.Writer, start time.Time, d time.Duration, hists map[string]*Histogram, order []string) error {
	lw := hdrhistogram.NewHistogramLogWriter(w)
	if err := lw.OutputLogFormatVersion(); err != nil {
		return err
	}
	if err := lw.OutputComment("llmslo latency histograms, values in nanoseconds, one interval per metric (tag)"); err != nil {
		return err
	}
	if err := lw.OutputStartTime(start.UnixMilli()); err != nil {
		return err
	}
	lw.SetBaseTime(start.UnixMilli())
	if err := lw.OutputLegend(); err != nil {
		return err
	}
	for _, m := range order {
		h := hists[m]
		if h == nil {
			continue
		}
		ns := h.nanoseconds()
		ns.SetTag(m)
		ns.SetStartTimeMs(start.UnixMilli())
		ns.SetEndTimeMs(start.Add(d).UnixMilli())
		if err := lw.OutputIntervalHistogram(ns); err != nil {
			return fmt.Errorf("hdr log %s: %w", m, err)
		}
	}
	return nil
}

// nanoseconds copies the histogram into one in nanoseconds: each recorded
// microsecond bucket lands at its highest equivalent value, so no quantile
// read from the copy is below the original's.
func (h *Histogram) nanoseconds() *hdrhistogram.Histogram {
	out := hdrhistogram.New(int64(histMin), int64(histMax), histSigFigs)
	for _, b := range h.h.Distribution() {
		if b.Count > 0 {
			_ = out.RecordValues(b.To*int64(time.Microsecond), b.Count)
		}
	}
	return out
}

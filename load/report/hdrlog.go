package report

import (
	"fmt"
	"io"
	"time"

	"github.com/llmslo/llmslo/load/stats"
)

// WriteHDRLog writes the step's latency histograms (TTFT, TTFT from send,
// ITL, TPOT, E2EL) as an HDR interval log covering the measured window:
// from the step's StartedAt (start, for a step that has none) for
// DurationS. It fails for a step without histograms (one built by hand, or
// from an old report).
func (s *StepReport) WriteHDRLog(w io.Writer, start time.Time) error {
	if s.Histograms == nil {
		return fmt.Errorf("step %s has no histograms (it was not recorded by this version of llmslo)", s.Name)
	}
	if !s.StartedAt.IsZero() {
		start = s.StartedAt
	}
	d := time.Duration(s.DurationS * float64(time.Second))
	hists := make(map[string]*stats.Histogram, len(s.Histograms))
	order := make([]string, 0, len(s.Histograms))
	for _, m := range []Metric{MetricTTFT, MetricTTFTSend, MetricITL, MetricTPOT, MetricE2EL} {
		hists[string(m)] = s.Histograms[m]
		order = append(order, string(m))
	}
	return stats.WriteHDRLog(w, start, d, hists, order)
}

package verdict

import (
	"fmt"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// TrendConfidence is the confidence of the Theil–Sen interval a trend is
// judged on: its lower end above zero is a rise at 99%, one-sided.
const TrendConfidence = 0.98

// minTrendBlocks is how many blocks with requests a trend needs: fewer
// cannot bound a slope at TrendConfidence however they lie.
const minTrendBlocks = 6

// trend is how the delay the server added moved through a step's window,
// from the best evidence the step has, with whether it is decisive: a
// rise whose interval lies above zero (a trend, not a burst) and whose
// size over the window is at least MinTrendRise and MinTrendRiseShare of
// the step's TTFT p50 (an effect, not a fast server's jitter).
type trend struct {
	source   string // what was fitted, for the message
	fit      stats.Trend
	riseMs   float64 // the fitted slope times the window
	blocks   int
	requests int
	decisive bool
}

// delayTrend fits the step's trend: on the server's queue time when it
// reports one, the delay it adds that a prompt's length does not move;
// otherwise on TTFT less each prompt's own effect (ttftTrend). ok is false
// when the step holds too few requests or blocks for either.
func delayTrend(s *report.StepReport, blocks []report.TTFTBlock, th Thresholds) (trend, bool) {
	t, ok := queueTrend(s, th)
	if !ok {
		t, ok = ttftTrend(s, blocks, th)
	}
	if !ok {
		return trend{}, false
	}
	t.riseMs = t.fit.Slope * s.DurationS
	t.decisive = t.fit.Rising() && t.riseMs >= ms(th.MinTrendRise) && t.riseMs >= th.MinTrendRiseShare*s.TTFT.P50
	return t, true
}

func queueTrend(s *report.StepReport, th Thresholds) (trend, bool) {
	var x, y []float64
	n := 0.0
	for _, b := range s.Server.QueueTimeBlocks {
		x, y = append(x, b.AtS), append(y, b.MeanMs)
		n += b.Requests
	}
	if len(x) < minTrendBlocks || n < float64(th.MinTrendRequests) {
		return trend{}, false
	}
	fit, ok := stats.TheilSen(x, y, TrendConfidence)
	return trend{source: "the server's queue time", fit: fit, blocks: len(x), requests: int(n)}, ok
}

// ttftTrend fits TTFT less each prompt's own effect: within each block,
// TTFT against prompt length gives a slope (ms a token), pooled across
// blocks, so that which block holds the long prompts cannot move it; each
// block's level is its mean TTFT at the window's mean prompt length. A
// trace whose long prompts fall in one half moves the halves' medians,
// not these levels.
func ttftTrend(s *report.StepReport, blocks []report.TTFTBlock, th Thresholds) (trend, bool) {
	var num, den, sp float64
	n := 0
	for _, b := range blocks {
		if b.N < 2 {
			continue
		}
		nb, p, y := float64(b.N), float64(b.SP), float64(b.SY)/1000
		num += float64(b.SPY)/1000 - p*y/nb
		den += float64(b.SPP) - p*p/nb
		sp += p
		n += int(b.N)
	}
	if n < th.MinTrendRequests {
		return trend{}, false
	}
	perToken := 0.0
	if den > 0 {
		perToken = max(num/den, 0) // a longer prompt never answers sooner
	}
	meanPrompt := sp / float64(n)
	width := s.DurationS / float64(len(blocks))
	var x, y []float64
	for i, b := range blocks {
		if b.N < 2 {
			continue
		}
		nb := float64(b.N)
		x = append(x, (float64(i)+0.5)*width)
		y = append(y, float64(b.SY)/1000/nb-perToken*(float64(b.SP)/nb-meanPrompt))
	}
	if len(x) < minTrendBlocks {
		return trend{}, false
	}
	fit, ok := stats.TheilSen(x, y, TrendConfidence)
	src := "TTFT"
	if perToken > 0 {
		src = fmt.Sprintf("TTFT less each prompt's own effect (%.3f ms a token)", perToken)
	}
	return trend{source: src, fit: fit, blocks: len(x), requests: n}, ok
}

// describe says what rose, by how much, and how sure.
func (t trend) describe() string {
	return fmt.Sprintf("%s rose by %.1f ms across the window (%.2f ms/s, %.0f%% interval %s, %d requests in %d blocks)",
		t.source, t.riseMs, t.fit.Slope, 100*TrendConfidence, interval(t.fit), t.requests, t.blocks)
}

func interval(f stats.Trend) string {
	return fmt.Sprintf("%.2f to %.2f", f.Lo, f.Hi)
}

// baselineTrend is the trend of the paired baseline's step of the same
// name (the same requests on the same schedule), or nil.
func baselineTrend(c Criteria, st *report.StepReport, th Thresholds) *trend {
	if c.Baseline == nil || !c.BaselinePaired {
		return nil
	}
	for i := range c.Baseline.Steps {
		bs := &c.Baseline.Steps[i]
		if bs.Name != st.Name {
			continue
		}
		var blocks []report.TTFTBlock
		if bs.Evidence != nil {
			blocks = bs.Evidence.TTFTBlocks
		}
		if t, ok := delayTrend(bs, blocks, th); ok {
			return &t
		}
	}
	return nil
}

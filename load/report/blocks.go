package report

import (
	"cmp"
	"fmt"
	"time"

	"github.com/llmslo/llmslo/load/vllmapi"
)

// StepBlock is one block of an alternating side-by-side step on one side:
// Block is its place in the side's step (block k of both sides holds the
// same requests), Turn its place in the run's ABBA order of both sides'
// blocks, StartedAt the start of its measured window, Scheduled the
// requests due in it.
type StepBlock struct {
	Block     int       `json:"block"`
	Turn      int       `json:"turn"`
	StartedAt time.Time `json:"started_at"`
	WindowS   float64   `json:"window_s"`
	Scheduled int       `json:"scheduled"`
}

// MergeBlocks joins the blocks of one side of an alternating step, each
// measured as a step of its own (a transient left out, then its window),
// into that side's step, as if its windows had run back to back: counts
// add and histograms merge as MergeStep's; the seconds of block k follow
// those of the blocks before it, and what a block observed after its
// window (while it drained) counts in its last second, so that second i is
// the same moment of the same block on both sides; the trend blocks add
// position by position (the delay's rise within a block, from an idle
// server, is what over capacity looks for); throughput is over the blocks'
// spans added; the server's figures join as joinServers says. The result is
// not judged.
func MergeBlocks(blocks []*StepReport) (StepReport, error) {
	if len(blocks) == 0 {
		return StepReport{}, fmt.Errorf("no block to merge")
	}
	parts := make([]ShardPart, len(blocks))
	at, spanMs, durS := 0, 0.0, 0.0
	for i, b := range blocks {
		if b.Histograms == nil || b.Evidence == nil {
			return StepReport{}, fmt.Errorf("block %d of step %s has no histograms or evidence", i, b.Name)
		}
		secs := max(int(b.DurationS), 1)
		parts[i] = ShardPart{Index: i, Step: b, At: at, Secs: secs}
		at, durS = at+secs, durS+b.DurationS
		if b.Requests.Sent > 0 {
			spanMs += b.Evidence.LastEndMs - b.Evidence.FirstSendMs
		}
	}
	m := mergeParts(parts)
	e := m.Evidence
	m.DurationS = durS
	e.FirstSendMs = blocks[0].Evidence.FirstSendMs
	e.LastEndMs = e.FirstSendMs + spanMs
	if m.DurationS > 0 {
		m.RateAchieved = float64(e.SentInWindow) / m.DurationS
	}
	if spanMs > 0 {
		m.Tokens.OutputPerS = float64(m.Tokens.Output) / (spanMs / 1000)
	}
	m.StartedAt = blocks[0].StartedAt
	m.Server = joinServers(blocks)
	m.Client = busiest(parts)
	return m, nil
}

// joinServers joins the blocks' server figures, each scraped over its own
// window: counters add, and so does the growth in the system (arrivals
// less completions over the windows, beside the windows' arrivals); maxima
// are the largest; means and shares, and the waiting queue's slope, rise
// and length at a window's end, are the blocks' mean (their windows are
// of one length: the worst of a few short windows' noisy slopes would
// call a healthy server over capacity); the queue-time blocks add position
// by position, as the trend blocks do.
func joinServers(blocks []*StepReport) vllmapi.ServerStats {
	j := blocks[0].Server
	j.QueueTimeBlocks = poolQueueBlocks(blocks)
	n := float64(len(blocks))
	mean := func(f func(s *vllmapi.ServerStats) float64) float64 {
		sum := 0.0
		for _, b := range blocks {
			sum += f(&b.Server)
		}
		return sum / n
	}
	for _, b := range blocks[1:] {
		s := b.Server
		j.MetricsAvailable = j.MetricsAvailable && s.MetricsAvailable
		j.PrefixCacheReset = j.PrefixCacheReset && s.PrefixCacheReset
		j.PrefixQueryTokens += s.PrefixQueryTokens
		j.PrefixHitTokens += s.PrefixHitTokens
		j.Preemptions += s.Preemptions
		j.MaxWaiting, j.KVCacheUsageMax, j.MaxRunning = max(j.MaxWaiting, s.MaxWaiting), max(j.KVCacheUsageMax, s.KVCacheUsageMax), max(j.MaxRunning, s.MaxRunning)
		j.InSystemGrowth += s.InSystemGrowth
		j.QueueTime = worseQueueTime(j.QueueTime, s.QueueTime)
	}
	j.WaitingSlopePerS = mean(func(s *vllmapi.ServerStats) float64 { return s.WaitingSlopePerS })
	j.WaitingRise = mean(func(s *vllmapi.ServerStats) float64 { return s.WaitingRise })
	j.WaitingAtEnd = mean(func(s *vllmapi.ServerStats) float64 { return s.WaitingAtEnd })
	j.KVCacheUsageMean = mean(func(s *vllmapi.ServerStats) float64 { return s.KVCacheUsageMean })
	j.MeanInSystem = mean(func(s *vllmapi.ServerStats) float64 { return s.MeanInSystem })
	j.QueuedShare = mean(func(s *vllmapi.ServerStats) float64 { return s.QueuedShare })
	j.RunningAtMaxShare = mean(func(s *vllmapi.ServerStats) float64 { return s.RunningAtMaxShare })
	j.PrefixCacheHitRate = nil
	if j.PrefixQueryTokens > 0 {
		r := j.PrefixHitTokens / j.PrefixQueryTokens
		j.PrefixCacheHitRate = &r
	}
	return j
}

// poolQueueBlocks pools the blocks' queue-time blocks by where each lies
// in its block's window (TrendBlocks positions; a block's scrape may skip
// one in which nobody left the queue): requests add, the mean wait and the
// position are weighted by requests, and the positions are stretched over
// the merged window, so that a slope fitted over them times the merged
// window is the rise within a block.
func poolQueueBlocks(blocks []*StepReport) []vllmapi.QueueBlock {
	var pos [TrendBlocks]vllmapi.QueueBlock
	for _, b := range blocks {
		for _, q := range b.Server.QueueTimeBlocks {
			if q.Requests <= 0 || b.DurationS <= 0 {
				continue
			}
			t := &pos[min(max(int(q.AtS/b.DurationS*TrendBlocks), 0), TrendBlocks-1)]
			n := t.Requests + q.Requests
			t.MeanMs = (t.MeanMs*t.Requests + q.MeanMs*q.Requests) / n
			t.AtS = (t.AtS*t.Requests + q.AtS*q.Requests) / n
			t.Requests = n
		}
	}
	var out []vllmapi.QueueBlock
	for _, q := range pos {
		if q.Requests > 0 {
			q.AtS *= float64(len(blocks))
			out = append(out, q)
		}
	}
	return out
}

// worseQueueTime is the block's queue time with the larger p95, the
// counts added (a p95 of the blocks together is not in their summaries).
func worseQueueTime(a, b *vllmapi.QueueTime) *vllmapi.QueueTime {
	if a == nil || b == nil {
		return cmp.Or(a, b)
	}
	w := *a
	if b.P95S > a.P95S {
		w = *b
	}
	w.Count, w.MaxS, w.Over = a.Count+b.Count, max(a.MaxS, b.MaxS), a.Over || b.Over
	return &w
}

package vllmapi

import "time"

// TrendBlocks is the number of equal blocks a step's measured window is cut
// into for the trend checks (over capacity, not_steady): few enough that
// each block's level averages several requests and a queue's seconds-long
// bursts stay mostly within one, many enough for a rank test of their
// order (docs/hazards.md).
const TrendBlocks = 10

// QueueBlock is one block of a step's window in the server's queue-time
// histogram: requests that left the waiting queue in it, and their mean
// wait. AtS is the block's middle, in seconds from the window's start.
type QueueBlock struct {
	AtS      float64 `json:"t_s"`
	Requests float64 `json:"requests"`
	MeanMs   float64 `json:"mean_ms"`
}

// queueBlocks cuts [from, until] in TrendBlocks blocks, or fewer when the
// samples are too sparse to give each its own (two samples a block at
// least), and takes each block's rise of the queue-time histogram between
// the samples nearest its ends. Blocks in which nobody left the queue are
// left out. Nil when the server exposes no queue time.
func queueBlocks(window []ServerSample, from, until time.Time) []QueueBlock {
	if len(window) < 3 || window[len(window)-1].QueueTimeCount == 0 || !until.After(from) {
		return nil
	}
	k := min(TrendBlocks, (len(window)-1)/2)
	span := until.Sub(from)
	nearest := func(t time.Time) ServerSample {
		best := window[0]
		for _, x := range window {
			if x.At.Sub(t).Abs() < best.At.Sub(t).Abs() {
				best = x
			}
		}
		return best
	}
	var out []QueueBlock
	for i := range k {
		a := nearest(from.Add(span * time.Duration(i) / time.Duration(k)))
		b := nearest(from.Add(span * time.Duration(i+1) / time.Duration(k)))
		n := b.QueueTimeCount - a.QueueTimeCount
		if n <= 0 || !b.At.After(a.At) {
			continue
		}
		mid := a.At.Add(b.At.Sub(a.At) / 2)
		out = append(out, QueueBlock{AtS: mid.Sub(from).Seconds(), Requests: n,
			MeanMs: (b.QueueTimeSum - a.QueueTimeSum) / n * 1000})
	}
	return out
}

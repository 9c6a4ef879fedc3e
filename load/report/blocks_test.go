package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/stats"
	"github.com/llmslo/llmslo/load/vllmapi"
)

// block is a block of window seconds that measured one TTFT of ttft in each
// second, one more in the second after its window (while it drained), and
// whose server saw hits of queries prefix tokens.
func block(window int, ttft time.Duration, hits, queries float64, waitingRise float64) *StepReport {
	h, c := stats.NewHistogram(), stats.NewClusters()
	var tl []Second
	due := make([]int, window)
	for s := range window + 1 {
		h.Record(ttft)
		c.Record(s, ttft)
		tl = append(tl, Second{T: s, Completed: 1, TTFTMeanMs: float64(ttft.Milliseconds()), TTFTMaxMs: float64(ttft.Milliseconds())})
		if s < window {
			due[s] = 1
		}
	}
	return &StepReport{
		Name: "rate=1", DurationS: float64(window), WarmupS: 2,
		Requests:   RequestCounts{Scheduled: window, Sent: window + 1, Completed: window + 1, Good: window + 1},
		Histograms: map[Metric]*stats.Histogram{MetricTTFT: h}, Clusters: map[Metric]*stats.Clusters{MetricTTFT: c},
		Timeline: tl, Tokens: TokenCounts{Output: 100},
		Evidence: &StepEvidence{TTFTFirstHalf: stats.NewHistogram(), TTFTSecondHalf: stats.NewHistogram(), SendLag: stats.NewHistogram(), BodyWrite: stats.NewHistogram(),
			DuePerS: due, SentPerS: due, Due: window, SentInWindow: window, FirstSendMs: 100, LastEndMs: 100 + 1000*float64(window)},
		Server: vllmapi.ServerStats{MetricsAvailable: true, PrefixHitTokens: hits, PrefixQueryTokens: queries, WaitingRise: waitingRise, KVCacheUsageMean: hits / queries},
	}
}

// Blocks merge as if their windows ran back to back: block k's seconds
// follow the blocks before it, a block's drain counts in its own last
// second, throughput is over the blocks' spans, and the server's counters
// add while its end-of-window queue figures are the worst block's.
func TestMergeBlocksPutsEachBlockInItsOwnSeconds(t *testing.T) {
	a, b := block(5, 100*time.Millisecond, 10, 100, 0), block(5, 300*time.Millisecond, 30, 100, 4)
	m, err := MergeBlocks([]*StepReport{a, b})
	require.NoError(t, err)
	assert.Equal(t, 10.0, m.DurationS)
	assert.Equal(t, 10, m.Requests.Scheduled)
	require.Len(t, m.Timeline, 10, "two blocks of five seconds")
	assert.Equal(t, 2, m.Timeline[4].Completed, "the first block's drain in its last second")
	assert.Equal(t, 1, m.Timeline[5].Completed, "the second block from second 5")
	assert.Equal(t, 300.0, m.Timeline[5].TTFTMeanMs)
	assert.Equal(t, 9, m.Timeline[9].T)
	assert.Equal(t, 10, m.Clusters[MetricTTFT].Seconds())
	assert.Equal(t, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, m.Evidence.DuePerS)
	assert.InDelta(t, 1.0, m.RateAchieved, 1e-9, "ten sends in ten seconds of windows")
	assert.InDelta(t, 200.0/10, m.Tokens.OutputPerS, 1e-9, "200 tokens over two spans of 5 s")
	assert.Equal(t, 40.0, m.Server.PrefixHitTokens)
	require.NotNil(t, m.Server.PrefixCacheHitRate)
	assert.InDelta(t, 0.2, *m.Server.PrefixCacheHitRate, 1e-9)
	assert.Equal(t, 2.0, m.Server.WaitingRise, "the blocks' mean")
	assert.InDelta(t, 0.2, m.Server.KVCacheUsageMean, 1e-9, "the blocks' mean")
	assert.Equal(t, int64(12), m.Histograms[MetricTTFT].Count())
	assert.Nil(t, m.Shards, "blocks are not shards")

	_, err = MergeBlocks(nil)
	assert.Error(t, err)
}

// The blocks' queue-time blocks pool by where each lies in its block's
// window, not by their place in the list: a block whose scrape skipped its
// first position (nobody left the queue there) still adds its later ones
// where they were, and the positions stretch over the merged window.
func TestMergeBlocksPoolsQueueTimeByPosition(t *testing.T) {
	a, b := block(10, 100*time.Millisecond, 1, 10, 0), block(10, 100*time.Millisecond, 1, 10, 0)
	a.Server.QueueTimeBlocks = []vllmapi.QueueBlock{{AtS: 0.5, Requests: 2, MeanMs: 10}, {AtS: 9.5, Requests: 2, MeanMs: 50}}
	b.Server.QueueTimeBlocks = []vllmapi.QueueBlock{{AtS: 9.5, Requests: 2, MeanMs: 70}} // its first position skipped
	m, err := MergeBlocks([]*StepReport{a, b})
	require.NoError(t, err)
	require.Len(t, m.Server.QueueTimeBlocks, 2)
	first, last := m.Server.QueueTimeBlocks[0], m.Server.QueueTimeBlocks[1]
	assert.Equal(t, vllmapi.QueueBlock{AtS: 1, Requests: 2, MeanMs: 10}, first, "a's first position alone")
	assert.Equal(t, vllmapi.QueueBlock{AtS: 19, Requests: 4, MeanMs: 60}, last, "both blocks' last, stretched over 20 s")
}

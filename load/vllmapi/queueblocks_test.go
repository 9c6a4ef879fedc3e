package vllmapi

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server of known behaviour, scraped once a second over a 20 s window:
// two requests leave its queue each second, having waited 10 ms more each
// second (the queue-time histogram's sum and count); one request is always
// waiting but in the last two seconds, and it holds three requests more at
// the end than at the start. The blocks, the queued share and the growth
// are those figures, exactly.
func TestSummariseServerReadsTheQueueItsScrapesShow(t *testing.T) {
	from := time.Unix(1000, 0)
	until := from.Add(20 * time.Second)
	var samples []ServerSample
	var sum, count float64
	for i := 0; i <= 20; i++ {
		waiting := 1.0
		if i >= 19 {
			waiting = 0
		}
		samples = append(samples, ServerSample{At: from.Add(time.Duration(i) * time.Second),
			Running: 2 + float64(i)*3/20, Waiting: waiting, QueueTimeSum: sum, QueueTimeCount: count})
		// the two that leave in second i waited 10·i ms each
		sum += 2 * float64(10*i) / 1000
		count += 2
	}
	st := SummariseServer(samples, from, until)
	require.True(t, st.MetricsAvailable)
	require.Len(t, st.QueueTimeBlocks, TrendBlocks, "21 scrapes: two a block for 10 blocks")
	for k, b := range st.QueueTimeBlocks {
		// block k spans seconds 2k to 2k+2: the requests that left in
		// seconds 2k and 2k+1, which waited 20k and 20k+10 ms.
		assert.InDelta(t, 4, b.Requests, 1e-9, "block %d", k)
		assert.InDelta(t, float64(20*k)+5, b.MeanMs, 1e-6, "block %d", k)
		assert.InDelta(t, float64(2*k+1), b.AtS, 1e-9, "block %d's middle", k)
	}
	assert.InDelta(t, 19.0/21, st.QueuedShare, 1e-9, "a request waited in 19 of the 21 scrapes")
	assert.InDelta(t, 3-1, st.InSystemGrowth, 1e-9, "running rose by 3, waiting fell by 1")
}

// Too few scrapes for two a block give fewer blocks; a server without the
// queue-time histogram gives none.
func TestQueueBlocksNeedScrapesAndTheHistogram(t *testing.T) {
	from := time.Unix(1000, 0)
	var samples []ServerSample
	for i := 0; i <= 8; i++ {
		samples = append(samples, ServerSample{At: from.Add(time.Duration(i) * time.Second),
			QueueTimeSum: float64(i), QueueTimeCount: float64(2 * i)})
	}
	assert.Len(t, queueBlocks(samples, from, from.Add(8*time.Second)), 4, "9 scrapes: 4 blocks of two")
	for i := range samples {
		samples[i].QueueTimeSum, samples[i].QueueTimeCount = 0, 0
	}
	assert.Nil(t, queueBlocks(samples, from, from.Add(8*time.Second)))
}

package vllmapi

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const vllmMetrics = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 3.0
vllm:num_requests_running{engine="1",model_name="m"} 2.0
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} 7.0
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25
vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.5
# TYPE vllm:prefix_cache_queries counter
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 1000.0
# TYPE vllm:prefix_cache_hits counter
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 250.0
# TYPE vllm:num_preemptions counter
vllm:num_preemptions_total{engine="0",model_name="m"} 4.0
`

func TestParseServerMetrics(t *testing.T) {
	s, err := ParseServerMetrics(strings.NewReader(vllmMetrics))
	require.NoError(t, err)
	assert.Equal(t, ServerSample{Running: 5, Waiting: 7, KVCacheUsage: 0.5, PrefixQueries: 1000, PrefixHits: 250, Preemptions: 4}, s)

	old := "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting 1\n# TYPE vllm:gpu_cache_usage_perc gauge\nvllm:gpu_cache_usage_perc 0.3\n"
	s, err = ParseServerMetrics(strings.NewReader(old))
	require.NoError(t, err)
	assert.Equal(t, 0.3, s.KVCacheUsage, "pre-V1 names are read too")

	_, err = ParseServerMetrics(strings.NewReader("# TYPE other gauge\nother 1\n"))
	assert.ErrorContains(t, err, "no vllm:num_requests_running")
	_, err = ParseServerMetrics(strings.NewReader("vllm:num_requests_waiting{ 1\n"))
	assert.Error(t, err)
}

func TestSummariseServer(t *testing.T) {
	t0 := time.Now()
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	samples := []ServerSample{
		{At: at(0), Waiting: 0, PrefixQueries: 100, PrefixHits: 50}, // warm-up
		{At: at(1), Waiting: 0, PrefixQueries: 200, PrefixHits: 60}, // measured window starts
		{At: at(2), Waiting: 2, PrefixQueries: 300, PrefixHits: 70, KVCacheUsage: 0.4},
		{At: at(3), Waiting: 4, PrefixQueries: 400, PrefixHits: 80, Preemptions: 1},
		{At: at(4), Waiting: 6, PrefixQueries: 500, PrefixHits: 90, Preemptions: 2},
		{At: at(5), Waiting: 8, PrefixQueries: 600, PrefixHits: 100, Preemptions: 3}, // schedule ends
		{At: at(6), Waiting: 0, PrefixQueries: 600, PrefixHits: 100, Preemptions: 3}, // drained
	}
	st := SummariseServer(samples, at(1), at(5))
	assert.True(t, st.MetricsAvailable)
	require.NotNil(t, st.PrefixCacheHitRate)
	assert.InDelta(t, 0.1, *st.PrefixCacheHitRate, 1e-9, "40 hits over 400 queried tokens, from the window's start")
	assert.Equal(t, 3.0, st.Preemptions)
	assert.Equal(t, 8.0, st.MaxWaiting)
	assert.Equal(t, 8.0, st.WaitingAtEnd, "judged at the end of the schedule, not after the drain")
	assert.InDelta(t, 2.0, st.WaitingSlopePerS, 1e-9)
	assert.InDelta(t, 4.0, st.WaitingRise, 1e-9)
	assert.Equal(t, 0.4, st.KVCacheUsageMax)
	assert.InDelta(t, 4.0, st.MeanInSystem, 1e-9, "0, 2, 4, 6 and 8 waiting over the window, the drain left out")

	assert.False(t, SummariseServer(samples[:1], at(0), at(0)).MetricsAvailable)
	assert.Nil(t, SummariseServer([]ServerSample{{At: at(0)}, {At: at(1)}}, at(0), at(1)).PrefixCacheHitRate)
}

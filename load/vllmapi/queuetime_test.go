package vllmapi

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// queueScrape is a scrape whose queue-time histogram holds counts at the
// edges 0.3, 0.5, 1 and +Inf (cumulative), on two engines that add up.
func queueScrape(c03, c05, c1, inf int) string {
	var b strings.Builder
	b.WriteString("# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n# TYPE vllm:request_queue_time_seconds histogram\n")
	for _, e := range []string{"0", "1"} {
		fmt.Fprintf(&b, "vllm:request_queue_time_seconds_bucket{engine=%q,le=\"0.3\"} %d\n", e, c03)
		fmt.Fprintf(&b, "vllm:request_queue_time_seconds_bucket{engine=%q,le=\"0.5\"} %d\n", e, c05)
		fmt.Fprintf(&b, "vllm:request_queue_time_seconds_bucket{engine=%q,le=\"1\"} %d\n", e, c1)
		fmt.Fprintf(&b, "vllm:request_queue_time_seconds_bucket{engine=%q,le=\"+Inf\"} %d\n", e, inf)
		fmt.Fprintf(&b, "vllm:request_queue_time_seconds_count{engine=%q} %d\nvllm:request_queue_time_seconds_sum{engine=%q} 1\n", e, inf, e)
	}
	return b.String()
}

// The window's rise, not the server's lifetime: 100 waits before it, and
// in it 90 under 0.3 s, 8 more under 0.5 s, 2 under 1 s.
func TestQueueTimeOverTheWindow(t *testing.T) {
	t0 := time.Now()
	a, err := ParseServerMetrics(strings.NewReader(queueScrape(50, 50, 50, 50)))
	require.NoError(t, err)
	b, err := ParseServerMetrics(strings.NewReader(queueScrape(95, 99, 100, 100)))
	require.NoError(t, err)
	a.At, b.At = t0, t0.Add(time.Second)
	st := SummariseServer([]ServerSample{a, b}, t0, t0.Add(time.Second))
	require.NotNil(t, st.QueueTime)
	assert.Equal(t, QueueTime{Count: 100, P95S: 0.5, MaxS: 1}, *st.QueueTime)

	// A wait beyond the last finite edge is said to be beyond it.
	c, err := ParseServerMetrics(strings.NewReader(queueScrape(95, 99, 100, 101)))
	require.NoError(t, err)
	q := queueTimeDelta(a.QueueTime, c.QueueTime)
	assert.Equal(t, QueueTime{Count: 102, P95S: 0.5, MaxS: 1, Over: true}, q)
}

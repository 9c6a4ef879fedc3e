package stats

import (
	"bytes"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteHDRLogRoundTrips(t *testing.T) {
	ttft, itl := NewHistogram(), NewHistogram()
	for i := 1; i <= 1000; i++ {
		ttft.Record(time.Duration(i) * time.Millisecond)
		itl.Record(time.Duration(i%10+1) * time.Millisecond)
	}
	var buf bytes.Buffer
	start := time.Unix(1_700_000_000, 0)
	require.NoError(t, WriteHDRLog(&buf, start, time.Minute, map[string]*Histogram{"ttft": ttft, "itl": itl},
		[]string{"ttft", "itl", "tpot"}))
	assert.Contains(t, buf.String(), "Tag=ttft,")
	assert.Contains(t, buf.String(), "values in nanoseconds")

	r := hdrhistogram.NewHistogramLogReader(&buf)
	got := map[string]*hdrhistogram.Histogram{}
	for {
		h, err := r.NextIntervalHistogram()
		require.NoError(t, err)
		if h == nil {
			break
		}
		got[h.Tag()] = h
	}
	require.Len(t, got, 2, "a metric with no histogram is left out")
	for tag, want := range map[string]*Histogram{"ttft": ttft, "itl": itl} {
		h := got[tag]
		require.NotNil(t, h, tag)
		assert.Equal(t, want.Count(), h.TotalCount(), tag)
		for _, p := range []float64{50, 95, 99} {
			w := float64(want.Quantile(p))
			assert.InEpsilon(t, w, float64(h.ValueAtQuantile(p)), 0.002, "%s p%g", tag, p)
		}
	}
}

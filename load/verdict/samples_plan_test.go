package verdict

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlannedShortStep(t *testing.T) {
	off := DefaultThresholds()
	off.Off = []string{HazardTooFewSamples}
	cases := []struct {
		name                   string
		slos                   []string
		th                     Thresholds
		rate, secs, meanOutput float64
		short                  bool
		slo                    string
		need, needSecs         float64
	}{
		// 2 req/s × 20 s = 40 requests; p95 needs 10 / 0.05 = 200.
		{"p95 at 2 req/s for 20 s", []string{"ttft.p95<=500ms"}, DefaultThresholds(), 2, 20, 100, true, "ttft.p95", 200, 100},
		{"zero thresholds take the defaults", []string{"ttft.p95<=500ms"}, Thresholds{}, 2, 20, 100, true, "ttft.p95", 200, 100},
		{"p95 at 16 req/s for 20 s", []string{"ttft.p95<=500ms"}, DefaultThresholds(), 16, 20, 100, false, "", 0, 0},
		// ITL: 99 gaps a request; p99 needs 1000, so 40 requests suffice.
		{"itl p99 from many tokens", []string{"itl.p99<=50ms"}, DefaultThresholds(), 2, 20, 100, false, "", 0, 0},
		{"itl p99 from two tokens", []string{"itl.p99<=50ms"}, DefaultThresholds(), 2, 20, 2, true, "itl.p99", 1000, 500},
		{"error rate needs no tail", []string{"error_rate<=1%"}, DefaultThresholds(), 0.1, 1, 100, false, "", 0, 0},
		{"hazard off", []string{"ttft.p99<=1s"}, off, 1, 1, 100, false, "", 0, 0},
	}
	for _, tc := range cases {
		slos, err := ParseSLOs(tc.slos)
		require.NoError(t, err, tc.name)
		got, short := PlannedShortStep(slos, tc.th, tc.rate, tc.secs, tc.meanOutput)
		require.Equal(t, tc.short, short, tc.name)
		if !short {
			continue
		}
		assert.Equal(t, tc.slo, got.SLO.Name(), tc.name)
		assert.InDelta(t, tc.need, got.Need, 1e-6, tc.name)
		assert.InDelta(t, tc.needSecs, got.NeedSecs, 1e-6, tc.name)
		assert.Less(t, got.Expect, got.Need, tc.name)
	}
}

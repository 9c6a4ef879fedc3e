package verdict

import (
	"testing"

	"github.com/llmslo/llmslo/load/report"
)

func FuzzParseSLO(f *testing.F) {
	for _, s := range []string{
		"ttft.p95<=500ms", "itl.p99<=50ms", "error_rate<=1%", "error_rate<=0.01",
		"e2el.p999<=1m30s", "tpot.p99.99 < 2.5ms", "ttft_send.p50<=1h", "tfft.p95<=500ms",
		"ttft.p95>=1s", "error_rate<=0.07", "error_rate<=33.333%", "itl.p1<=1ns", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slo, err := ParseSLO(s)
		if err != nil {
			return
		}
		canonical := slo.String()
		back, err := ParseSLO(canonical)
		if err != nil {
			t.Fatalf("%q parsed to %+v, but its String %q does not parse: %v", s, slo, canonical, err)
		}
		if back != slo {
			t.Fatalf("%q parsed to %+v; its String %q parses to %+v", s, slo, canonical, back)
		}
		if back.String() != canonical {
			t.Fatalf("String is not stable: %q then %q", canonical, back.String())
		}
		if slo.Metric == report.MetricErrorRate {
			if slo.MaxRate < 0 || slo.MaxRate > 1 || slo.Percentile != 0 || slo.Limit != 0 {
				t.Fatalf("%q: bad error-rate SLO %+v", s, slo)
			}
		} else if !(slo.Percentile > 0 && slo.Percentile < 100) || slo.Limit <= 0 || slo.MaxRate != 0 {
			t.Fatalf("%q: bad latency SLO %+v", s, slo)
		}
	})
}

package verdict

import (
	"strings"
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/report"
)

func TestParseSLO(t *testing.T) {
	tests := []struct {
		in        string
		want      SLO
		canonical string
	}{
		{"ttft.p95<=500ms", SLO{Metric: report.MetricTTFT, Percentile: 95, Limit: 500 * time.Millisecond}, "ttft.p95<=500ms"},
		{"itl.p99<=50ms", SLO{Metric: report.MetricITL, Percentile: 99, Limit: 50 * time.Millisecond}, "itl.p99<=50ms"},
		{" ttft . p95 <= 500 ms ", SLO{Metric: report.MetricTTFT, Percentile: 95, Limit: 500 * time.Millisecond}, "ttft.p95<=500ms"},
		{"ttft.p95<500ms", SLO{Metric: report.MetricTTFT, Percentile: 95, Limit: 500 * time.Millisecond}, "ttft.p95<=500ms"},
		{"TTFT.P95<=0.5s", SLO{Metric: report.MetricTTFT, Percentile: 95, Limit: 500 * time.Millisecond}, "ttft.p95<=500ms"},
		{"ttft_send.p50<=1s", SLO{Metric: report.MetricTTFTSend, Percentile: 50, Limit: time.Second}, "ttft_send.p50<=1s"},
		{"tpot.p90<=20ms", SLO{Metric: report.MetricTPOT, Percentile: 90, Limit: 20 * time.Millisecond}, "tpot.p90<=20ms"},
		{"e2el.p99.9<=1m", SLO{Metric: report.MetricE2EL, Percentile: 99.9, Limit: time.Minute}, "e2el.p99.9<=1m0s"},
		{"e2el.p999<=90s", SLO{Metric: report.MetricE2EL, Percentile: 99.9, Limit: 90 * time.Second}, "e2el.p99.9<=1m30s"},
		{"itl.p99.99<=100ms", SLO{Metric: report.MetricITL, Percentile: 99.99, Limit: 100 * time.Millisecond}, "itl.p99.99<=100ms"},
		{"itl.p9999<=100ms", SLO{Metric: report.MetricITL, Percentile: 99.99, Limit: 100 * time.Millisecond}, "itl.p99.99<=100ms"},
		{"itl.p99<=250us", SLO{Metric: report.MetricITL, Percentile: 99, Limit: 250 * time.Microsecond}, "itl.p99<=250µs"},
		{"itl.p99<=250µs", SLO{Metric: report.MetricITL, Percentile: 99, Limit: 250 * time.Microsecond}, "itl.p99<=250µs"},
		{"ttft.p95<=1500000ns", SLO{Metric: report.MetricTTFT, Percentile: 95, Limit: 1500 * time.Microsecond}, "ttft.p95<=1.5ms"},
		{"error_rate<=1%", SLO{Metric: report.MetricErrorRate, MaxRate: 0.01}, "error_rate<=1%"},
		{"error_rate<=0.01", SLO{Metric: report.MetricErrorRate, MaxRate: 0.01}, "error_rate<=1%"},
		{"error_rate < 0.5 %", SLO{Metric: report.MetricErrorRate, MaxRate: 0.005}, "error_rate<=0.5%"},
		{"error_rate<=0%", SLO{Metric: report.MetricErrorRate, MaxRate: 0}, "error_rate<=0%"},
		{"error_rate<=100%", SLO{Metric: report.MetricErrorRate, MaxRate: 1}, "error_rate<=100%"},
		{"error_rate<=7%", SLO{Metric: report.MetricErrorRate, MaxRate: 0.07}, "error_rate<=7%"},
	}
	for _, tt := range tests {
		got, err := ParseSLO(tt.in)
		if err != nil {
			t.Errorf("ParseSLO(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseSLO(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		if s := got.String(); s != tt.canonical {
			t.Errorf("ParseSLO(%q).String() = %q, want %q", tt.in, s, tt.canonical)
		}
		if back, err := ParseSLO(got.String()); err != nil || back != got {
			t.Errorf("%q does not round-trip: %+v, %v", got.String(), back, err)
		}
	}
}

func TestParseSLOErrors(t *testing.T) {
	tests := []struct {
		name, in, says string
	}{
		{"unknown metric", "latency.p95<=1s", `unknown metric "latency"; valid metrics: ttft, ttft_send, itl, tpot, e2el, e2el_send, error_rate`},
		{"typo", "tfft.p95<=500ms", `unknown metric "tfft" (did you mean "ttft"?)`},
		{"typo in error_rate", "eror_rate<=1%", `(did you mean "error_rate"?)`},
		{"missing percentile", "ttft<=500ms", "ttft needs a percentile, as ttft.p95<=LIMIT"},
		{"empty percentile", "ttft.<=500ms", "ttft needs a percentile"},
		{"percentile on error_rate", "error_rate.p99<=1%", "error_rate takes no percentile"},
		{"percentile 100", "ttft.p100<=1s", `percentile "p100" is outside (0, 100)`},
		{"percentile 0", "ttft.p0<=1s", `percentile "p0" is outside (0, 100)`},
		{"percentile not a number", "ttft.pmax<=1s", `percentile "pmax" not understood`},
		{"percentile without p", "ttft.95<=1s", `percentile "95" not understood`},
		{"percentile in exponent form", "ttft.p9e1<=1s", `percentile "p9e1" not understood`},
		{"zero limit", "ttft.p95<=0ms", `limit "0ms" must be positive`},
		{"negative limit", "ttft.p95<=-5ms", `limit "-5ms" must be positive`},
		{"limit without unit", "ttft.p95<=500", `limit "500" has no unit; write for example 500ms`},
		{"zero without unit", "ttft.p95<=0", `limit "0" has no unit`},
		{"wrong direction", "ttft.p95>=500ms", `">=" is the wrong direction: an SLO is an upper bound, written <=`},
		{"greater than", "ttft.p95>500ms", `">" is the wrong direction`},
		{"equals", "ttft.p95=500ms", `comparison "=" not understood; write <=`},
		{"reversed", "ttft.p95=<500ms", `comparison "=<" not understood`},
		{"trailing junk", "ttft.p95<=500ms!", `limit "500ms!" is not a duration`},
		{"trailing word", "ttft.p95<=500ms please", `limit "500msplease" is not a duration`},
		{"no comparison", "ttft.p95 500ms", "no comparison; expected METRIC.pNN<=LIMIT"},
		{"no limit", "ttft.p95<=", `no limit after "<="`},
		{"empty", "  ", "empty; expected METRIC.pNN<=LIMIT"},
		{"error rate above 100%", "error_rate<=150%", `error rate "150%" is more than 100%`},
		{"error rate above 1", "error_rate<=2", `error rate "2" is more than 100%`},
		{"negative error rate", "error_rate<=-1%", `error rate "-1%" not understood`},
		{"error rate as duration", "error_rate<=5ms", `error rate "5ms" not understood`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSLO(tt.in)
			if err == nil {
				t.Fatalf("ParseSLO(%q) succeeded, want an error", tt.in)
			}
			msg := err.Error()
			if !strings.Contains(msg, `slo "`+tt.in+`"`) {
				t.Errorf("error %q does not quote the input", msg)
			}
			if !strings.Contains(msg, tt.says) {
				t.Errorf("error %q, want it to say %q", msg, tt.says)
			}
		})
	}
}

func TestParseSLOs(t *testing.T) {
	got, err := ParseSLOs([]string{"ttft.p95<=500ms", "ttft.p99<=1s", "itl.p99<=50ms", "error_rate<=1%"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[1].Name() != "ttft.p99" || got[3].Name() != "error_rate" {
		t.Fatalf("ParseSLOs = %v", got)
	}
	for _, dup := range [][]string{
		{"ttft.p95<=500ms", "ttft.p95 <= 400ms"},
		{"e2el.p999<=1s", "e2el.p99.9<=2s"},
		{"error_rate<=1%", "error_rate<=0.02"},
	} {
		_, err := ParseSLOs(dup)
		if err == nil || !strings.Contains(err.Error(), "is already bounded by") || !strings.Contains(err.Error(), dup[0]) {
			t.Errorf("ParseSLOs(%q) error %v, want a duplicate naming the first", dup, err)
		}
	}
	if _, err := ParseSLOs([]string{"ttft.p95<=500ms", "nope"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("a bad entry gave %v", err)
	}
	if got, err := ParseSLOs(nil); err != nil || len(got) != 0 {
		t.Errorf("ParseSLOs(nil) = %v, %v", got, err)
	}
}

func TestDefaultSLOs(t *testing.T) {
	var names []string
	for _, s := range DefaultSLOs() {
		names = append(names, s.String())
	}
	if got, want := strings.Join(names, " "), "ttft.p95<=500ms itl.p99<=50ms error_rate<=1%"; got != want {
		t.Fatalf("DefaultSLOs = %s, want %s", got, want)
	}
	if _, err := ParseSLOs(names); err != nil {
		t.Fatalf("defaults do not parse back: %v", err)
	}
}

func TestErrorRateStringRoundTrips(t *testing.T) {
	rates := []float64{1e-9, 1.0 / 3, 0.123456789, 0.999999}
	for i := 0; i <= 1000; i++ {
		rates = append(rates, float64(i)/1000, float64(i)/100000)
	}
	for _, r := range rates {
		s := SLO{Metric: report.MetricErrorRate, MaxRate: r}
		back, err := ParseSLO(s.String())
		if err != nil || back != s {
			t.Fatalf("%v as %q reads back as %+v, %v", r, s.String(), back, err)
		}
	}
}

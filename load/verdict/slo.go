package verdict

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/llmslo/llmslo/internal/nearest"
	"github.com/llmslo/llmslo/load/report"
)

// sloMetrics is the order the metrics are listed in errors.
var sloMetrics = []report.Metric{report.MetricTTFT, report.MetricTTFTSend, report.MetricITL, report.MetricTPOT, report.MetricE2EL, report.MetricE2ELSend, report.MetricErrorRate}

// sloMetricList names them for errors, from the list itself so that it
// cannot fall behind.
var sloMetricList = func() string {
	names := make([]string, len(sloMetrics))
	for i, m := range sloMetrics {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}()

// SLO is one objective: a latency percentile at or under a limit, or the
// fraction of failed requests at or under a maximum.
type SLO struct {
	Metric report.Metric
	// Percentile is in (0, 100) for latency metrics (95 for p95, 99.9 for
	// p99.9) and 0 for error_rate.
	Percentile float64
	// Limit is the latency limit; the SLO holds when the percentile is at
	// or under it.
	Limit time.Duration
	// MaxRate is error_rate's limit, a fraction in [0, 1].
	MaxRate float64
}

// DefaultSLOs are the objectives a run gates on when none is given:
// ttft.p95<=500ms, itl.p99<=50ms and error_rate<=1%. They suit an
// interactive chat service on one GPU; set your own for anything else.
func DefaultSLOs() []SLO {
	return []SLO{
		{Metric: report.MetricTTFT, Percentile: 95, Limit: 500 * time.Millisecond},
		{Metric: report.MetricITL, Percentile: 99, Limit: 50 * time.Millisecond},
		{Metric: report.MetricErrorRate, MaxRate: 0.01},
	}
}

// Name is the metric and percentile, as "ttft.p95" or "error_rate".
func (s SLO) Name() string {
	if s.Metric == report.MetricErrorRate {
		return string(s.Metric)
	}
	return string(s.Metric) + ".p" + strconv.FormatFloat(s.Percentile, 'f', -1, 64)
}

// String is the canonical form, which ParseSLO reads back to the same SLO:
// "ttft.p95<=500ms", "itl.p99.9<=50ms", "error_rate<=1%".
func (s SLO) String() string {
	if s.Metric == report.MetricErrorRate {
		return s.Name() + "<=" + formatRate(s.MaxRate)
	}
	return s.Name() + "<=" + s.Limit.String()
}

// formatRate writes a fraction as the shortest percentage that parses back
// to exactly the same float, or as the fraction itself if none does.
func formatRate(r float64) string {
	for prec := 1; prec <= 17; prec++ {
		pct := strconv.FormatFloat(r*100, 'g', prec, 64)
		if v, err := strconv.ParseFloat(pct, 64); err == nil && v/100 == r && isPlainNumber(pct) {
			return pct + "%"
		}
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// ParseSLO reads one objective: METRIC.pPERCENTILE<=LIMIT for a latency
// metric ("ttft.p95<=500ms", "itl.p99.9<=50ms"; p999 is read as p99.9) and
// error_rate<=MAX ("error_rate<=1%" or "error_rate<=0.01"). Spaces anywhere
// are ignored and names are case-insensitive. "<" is accepted and means
// the same as "<=": a limit is met when the observed value does not exceed
// it. Limits take a Go duration unit (ns, us, µs, ms, s, m, h).
func ParseSLO(s string) (SLO, error) {
	fail := func(format string, args ...any) (SLO, error) {
		return SLO{}, fmt.Errorf("slo %q: %s", s, fmt.Sprintf(format, args...))
	}
	compact := strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
	if compact == "" {
		return fail("empty; expected METRIC.pNN<=LIMIT such as ttft.p95<=500ms, or error_rate<=1%%")
	}
	opAt := strings.IndexAny(compact, "<>=!")
	if opAt < 0 {
		return fail("no comparison; expected METRIC.pNN<=LIMIT such as ttft.p95<=500ms, or error_rate<=1%%")
	}
	left, rest := compact[:opAt], compact[opAt:]
	opEnd := 0
	for opEnd < len(rest) && strings.IndexByte("<>=!", rest[opEnd]) >= 0 {
		opEnd++
	}
	op, right := rest[:opEnd], rest[opEnd:]
	switch op {
	case "<=", "<":
	case ">=", ">":
		return fail("%q is the wrong direction: an SLO is an upper bound, written <=", op)
	default:
		return fail("comparison %q not understood; write <=", op)
	}
	metricText, pctText, hasPct := strings.Cut(left, ".")
	metric := report.Metric(strings.ToLower(metricText))
	if !knownMetric(metric) {
		hint := ""
		if m, ok := nearest.Name(string(metric), sloMetrics, 2); ok { // metrics are short: two edits is a typo
			hint = fmt.Sprintf(" (did you mean %q?)", m)
		}
		return fail("unknown metric %q%s; valid metrics: %s", metricText, hint, sloMetricList)
	}
	if right == "" {
		return fail("no limit after %q", op)
	}
	if metric == report.MetricErrorRate {
		if hasPct {
			return fail("error_rate takes no percentile; write error_rate<=1%%")
		}
		rate, err := parseRate(right)
		if err != nil {
			return fail("%v", err)
		}
		return SLO{Metric: metric, MaxRate: rate}, nil
	}
	if !hasPct || pctText == "" {
		return fail("%s needs a percentile, as %s.p95<=LIMIT", metric, metric)
	}
	pct, err := parsePercentile(pctText)
	if err != nil {
		return fail("%v", err)
	}
	limit, err := parseLimit(right)
	if err != nil {
		return fail("%v", err)
	}
	return SLO{Metric: metric, Percentile: pct, Limit: limit}, nil
}

// ParseSLOs parses each objective and rejects two for the same metric and
// percentile.
func ParseSLOs(ss []string) ([]SLO, error) {
	out := make([]SLO, 0, len(ss))
	seen := make(map[string]string, len(ss))
	for _, s := range ss {
		slo, err := ParseSLO(s)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[slo.Name()]; dup {
			return nil, fmt.Errorf("slo %q: %s is already bounded by %q; give each metric and percentile once", s, slo.Name(), prev)
		}
		seen[slo.Name()] = s
		out = append(out, slo)
	}
	return out, nil
}

func knownMetric(m report.Metric) bool {
	for _, k := range sloMetrics {
		if m == k {
			return true
		}
	}
	return false
}

// parsePercentile reads "p95", "p99.9" or "p999" (= 99.9).
func parsePercentile(s string) (float64, error) {
	digits, ok := strings.CutPrefix(strings.ToLower(s), "p")
	if !ok || digits == "" || !isPlainNumber(digits) {
		return 0, fmt.Errorf("percentile %q not understood; write p50, p90, p95, p99 or p99.9", s)
	}
	// p999 and p9999 are the usual shorthand for p99.9 and p99.99.
	if !strings.Contains(digits, ".") && len(digits) > 2 && strings.HasPrefix(digits, "99") {
		digits = digits[:2] + "." + digits[2:]
	}
	v, err := strconv.ParseFloat(digits, 64)
	if err != nil || !(v > 0 && v < 100) {
		return 0, fmt.Errorf("percentile %q is outside (0, 100); write p50, p90, p95, p99 or p99.9", s)
	}
	return v, nil
}

// parseLimit reads a positive duration with a unit.
func parseLimit(s string) (time.Duration, error) {
	if isPlainNumber(s) {
		return 0, fmt.Errorf("limit %q has no unit; write for example %sms", s, s)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("limit %q is not a duration; write a number and a unit (ns, us, ms, s, m), such as 500ms", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("limit %q must be positive", s)
	}
	return d, nil
}

// parseRate reads "1%" or "0.01" as a fraction in [0, 1].
func parseRate(s string) (float64, error) {
	num, pct := strings.CutSuffix(s, "%")
	if !isPlainNumber(num) {
		return 0, fmt.Errorf("error rate %q not understood; write a percentage such as 1%% or a fraction such as 0.01", s)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("error rate %q not understood; write a percentage such as 1%% or a fraction such as 0.01", s)
	}
	if pct {
		v /= 100
	}
	if v > 1 || math.IsNaN(v) {
		return 0, fmt.Errorf("error rate %q is more than 100%%; write a percentage such as 1%% or a fraction such as 0.01", s)
	}
	return v, nil
}

// isPlainNumber reports whether s is digits with at most one dot.
func isPlainNumber(s string) bool {
	digits, dots := 0, 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.':
			dots++
		default:
			return false
		}
	}
	return digits > 0 && dots <= 1
}

// Spec is the SLO as a report states it.
func (s SLO) Spec() report.SLOSpec {
	return report.SLOSpec{Metric: string(s.Metric), Percentile: s.Percentile, LimitMs: ms(s.Limit), MaxRate: s.MaxRate}
}

package main

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// tally counts one row's runs and outcomes over the trials. Every run
// counts: an invalid one is a run in which the gate raised no alarm.
type tally struct {
	name                      string
	runs, pass, fail, invalid int
	overload                  int // of the failures, those over capacity
	alarms                    int
	byMetric                  map[string]int // alarms raised by each metric's check
	ratioSum                  float64        // of the judged runs' ttft ratios
	ratioN                    int            // how many ttft ratios ratioSum holds
	noAlarms                  bool           // the baseline row: no comparison
	hazards                   map[string]int // hazard kinds of the invalid runs
	// seconds holds each run's measured window: shorter than the cap
	// when the run was decided early, which is what running until
	// decided saves.
	seconds []float64
	decided int // runs a look stopped before the cap
}

func newTally(name string) *tally {
	return &tally{name: name, byMetric: map[string]int{}, hazards: map[string]int{}}
}

// count adds a run's step verdict (and, when invalid, its hazard kinds)
// and the seconds it measured.
func (t *tally) count(st *report.StepReport) {
	t.runs++
	t.seconds = append(t.seconds, st.DurationS)
	if st.UntilDecided != nil && st.UntilDecided.Decided {
		t.decided++
	}
	switch st.Verdict {
	case report.VerdictPass:
		t.pass++
	case report.VerdictFail:
		t.fail++
		if st.OverCapacity != nil {
			t.overload++
		}
	case report.VerdictInvalid:
		t.invalid++
		for _, h := range st.Hazards {
			t.hazards[h.Kind]++
		}
	}
}

// measuredHeader names the columns measured formats.
const measuredHeader = "mean s\tp90 s\tcap s\tdecided early"

// measured formats the row's seconds measured (mean and p90), the cap
// and how many runs were decided before it, as tab-separated columns.
func (t *tally) measured(capS float64) string {
	if len(t.seconds) == 0 {
		return fmt.Sprintf("—\t—\t%.0f\t—", capS)
	}
	var sum float64
	for _, s := range t.seconds {
		sum += s
	}
	return fmt.Sprintf("%.1f\t%.1f\t%.0f\t%d of %d", sum/float64(len(t.seconds)), p90(t.seconds), capS, t.decided, t.runs)
}

// p90 is the 90th percentile of xs by nearest rank (the value at rank
// ⌈0.9 n⌉ in ascending order), so that it is always a run's own seconds;
// NaN when xs is empty. xs is left unsorted.
func p90(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	rank := (9*len(s) + 9) / 10 // ⌈9n/10⌉, in integers
	return s[rank-1]
}

// rate formats k of n as a percentage with its Wilson 95% interval.
func rate(k, n int) string {
	if n == 0 {
		return "—\t—"
	}
	lo, hi := stats.WilsonInterval(int64(k), int64(n), 0.95)
	return fmt.Sprintf("%.0f%%\t[%.0f%%, %.0f%%]", 100*float64(k)/float64(n), 100*lo, 100*hi)
}

// kinds lists hazard kinds with their counts, most frequent first.
func kinds(m map[string]int) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return m[ks[i]] > m[ks[j]] || m[ks[i]] == m[ks[j]] && ks[i] < ks[j] })
	var b strings.Builder
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s ×%d", k, m[k])
	}
	if b.Len() == 0 {
		return "—"
	}
	return b.String()
}

// alarm tallies a judged step's comparisons and says whether the gate
// alarmed: its own verdict, with the comparison in it, is a failure (exit
// 1), whether a regression or an SLO raised it.
func (t *tally) alarm(st *report.StepReport, checks []report.BaselineCheck) bool {
	for _, c := range checks {
		if c.Regressed {
			t.byMetric[c.Metric]++
		}
		if c.Metric == "ttft" {
			t.ratioSum += c.Ratio
			t.ratioN++
		}
	}
	alarm := st.Verdict == report.VerdictFail
	if alarm {
		t.alarms++
	}
	return alarm
}

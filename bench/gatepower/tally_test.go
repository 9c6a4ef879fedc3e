package main

import (
	"math"
	"testing"

	"github.com/llmslo/llmslo/load/report"
)

func TestP90IsTheNearestRank(t *testing.T) {
	tens := []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	cases := []struct {
		name string
		xs   []float64
		want float64
	}{
		{"one run", []float64{12.5}, 12.5},
		{"two runs: the larger", []float64{30, 11}, 30},
		{"ten runs: the ninth smallest", tens, 9},
		{"eleven runs: rank 10", append([]float64{11}, tens...), 10},
		{"twenty runs: rank 18", append(append([]float64(nil), tens...), 11, 12, 13, 14, 15, 16, 17, 18, 19, 20), 18},
	}
	for _, c := range cases {
		if got := p90(c.xs); got != c.want {
			t.Errorf("%s: p90(%v) = %g, want %g", c.name, c.xs, got, c.want)
		}
	}
	if got := p90(nil); !math.IsNaN(got) {
		t.Errorf("p90 of no runs = %g, want NaN", got)
	}
	if tens[0] != 10 {
		t.Errorf("p90 sorted its argument: %v", tens)
	}
}

func TestMeasuredCountsTheRunsDecidedEarly(t *testing.T) {
	tl := newTally("row")
	if got, want := tl.measured(40), "—\t—\t40\t—"; got != want {
		t.Errorf("no runs: measured = %q, want %q", got, want)
	}
	tl.count(&report.StepReport{Verdict: report.VerdictPass, DurationS: 12,
		UntilDecided: &report.UntilDecided{Decided: true, AtS: 12, CapS: 40}})
	tl.count(&report.StepReport{Verdict: report.VerdictFail, DurationS: 40,
		UntilDecided: &report.UntilDecided{CapS: 40}}) // the cap came first
	tl.count(&report.StepReport{Verdict: report.VerdictPass, DurationS: 20}) // not run until decided
	if got, want := tl.measured(40), "24.0\t40.0\t40\t1 of 3"; got != want {
		t.Errorf("measured = %q, want %q", got, want)
	}
}

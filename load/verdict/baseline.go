package verdict

import (
	"errors"
	"fmt"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// BaselineSideConfidence is the confidence of each run's own interval when
// a baseline without clusters is compared (the fallback of ratioInterval).
// Two independent intervals at 95% each err on the high side of the ratio
// together with probability at most 2.5% + 2.5%, so a regression is called
// by chance at most 5% of the time. With clusters the ratio's interval is a
// block bootstrap at CIConfidence instead.
const BaselineSideConfidence = 0.95

// ErrBaselineStep is wrapped by CompareBaseline's errors: the baseline
// lacks the step or one of its percentiles.
var ErrBaselineStep = errors.New("no baseline to compare with")

// CompareBaseline checks every latency SLO of st against the same step of
// base. It is an error when base has no such step or did not measure the
// percentile: a gate must not pass for want of something to compare with.
// paired says the two runs were checked to send the same requests on the
// same schedule (load.Open checks it): the comparison is then paired.
func CompareBaseline(base *report.Report, st *report.StepReport, paired bool, tolerance float64) ([]report.BaselineCheck, error) {
	return compareBaseline(base, st, paired, tolerance, CIConfidence, false)
}

// compareBaseline is CompareBaseline at confidence conf. sameSeconds
// compares only the seconds both steps measured, as a step cut short by
// its decision, or a look at one in progress, needs: the same requests on
// the same schedule, and none the other never sent.
func compareBaseline(base *report.Report, st *report.StepReport, paired bool, tolerance, conf float64, sameSeconds bool) ([]report.BaselineCheck, error) {
	var bs *report.StepReport
	for i := range base.Steps {
		if base.Steps[i].Name == st.Name {
			bs = &base.Steps[i]
		}
	}
	if bs == nil {
		return nil, fmt.Errorf("%w: the baseline has no step %s", ErrBaselineStep, st.Name)
	}
	// A step run until decided ends where it was decided: compare the
	// seconds both measured.
	sameSeconds = sameSeconds || bs.DurationS != st.DurationS
	var out []report.BaselineCheck
	for _, r := range st.SLO {
		if r.Metric == string(report.MetricErrorRate) || r.Samples == 0 {
			continue
		}
		b, ok := findResult(bs.SLO, r.Metric, r.Percentile)
		if !ok || b.Samples == 0 || b.ObservedMs <= 0 {
			return nil, fmt.Errorf("%w: the baseline's step %s has no %s.p%g", ErrBaselineStep, st.Name, r.Metric, r.Percentile)
		}
		c := report.BaselineCheck{Metric: r.Metric, Percentile: r.Percentile, BaselineMs: b.ObservedMs,
			ObservedMs: r.ObservedMs, CI95Ms: r.CI95Ms, Ratio: r.ObservedMs / b.ObservedMs,
			Paired: paired, Tolerance: tolerance}
		if est, ok := ratioEstimate(st, bs, report.Metric(r.Metric), r.Percentile, r.DesignEffect, b.DesignEffect, paired, conf, sameSeconds); ok {
			c.Ratio, c.RatioCI95 = est.point, &[2]float64{est.lo, est.hi}
		}
		switch {
		case c.RatioCI95 != nil:
			c.Regressed = c.RatioCI95[0] > 1+tolerance
		case r.CI95Ms != nil: // a baseline without histograms: its point only
			c.Regressed = r.CI95Ms[0] > b.ObservedMs*(1+tolerance)
		default:
			c.Regressed = c.Ratio > 1+tolerance
		}
		out = append(out, c)
	}
	return out, nil
}

// ratio is a ratio observed/baseline and its interval, from one estimator.
type ratio struct{ point, lo, hi float64 }

// ratioEstimate is observed/baseline for a percentile with its interval,
// the point read the way the interval's ends are, so that it lies inside
// it. With both runs' clusters (reports since design effects) it is the
// block bootstrap of stats.RatioEstimate at 95%, paired when the runs are:
// its lower end clears 1 + tolerance by chance at most 2.5% of the time.
// Otherwise it is the histograms' ratio within [lo_new/hi_base,
// hi_new/lo_base] from both runs' order-statistic intervals, each widened
// by its run's design effect. ok is false when either run lacks the
// histogram or the samples for an interval.
func ratioEstimate(st, bs *report.StepReport, m report.Metric, p, deffNew, deffBase float64, paired bool, conf float64, sameSeconds bool) (ratio, bool) {
	hn, hb := st.Histogram(m), bs.Histogram(m)
	if hn == nil || hb == nil {
		return ratio{}, false
	}
	if _, _, ok := stats.QuantileCIRanks(hn.Count(), p, BaselineSideConfidence); !ok {
		return ratio{}, false // too few for the percentile, whatever the method
	}
	if cn, cb := st.Clusters[m], bs.Clusters[m]; cn.Count() > 0 && cb.Count() > 0 {
		if sameSeconds {
			// Only the whole seconds both windows measured: a second past
			// a window's end (its drain, or a look's requests still in
			// flight) holds the gaps of some of its requests only.
			secs := min(cn.Seconds(), cb.Seconds(), int(st.DurationS), int(bs.DurationS))
			cn, cb = cn.Prefix(secs), cb.Prefix(secs)
		}
		if point, lo, hi, ok := stats.RatioEstimate(cn, cb, p, conf, paired); ok {
			return ratio{point, lo, hi}, true
		}
	}
	if sameSeconds {
		// The histograms below hold each whole window, which differ.
		return ratio{}, false
	}
	nlo, nhi, ok1 := hn.QuantileCIClustered(p, BaselineSideConfidence, deffNew)
	blo, bhi, ok2 := hb.QuantileCIClustered(p, BaselineSideConfidence, deffBase)
	qn, qb := hn.Quantile(p), hb.Quantile(p)
	if !ok1 || !ok2 || blo <= 0 || bhi <= 0 || qb <= 0 {
		return ratio{}, false
	}
	// The order-statistic ranks hold the percentile's own rank, so the
	// histograms' ratio lies between these ends.
	return ratio{float64(qn) / float64(qb), float64(nlo) / float64(bhi), float64(nhi) / float64(blo)}, true
}

func findResult(rs []report.SLOResult, metric string, p float64) (report.SLOResult, bool) {
	for _, r := range rs {
		if r.Metric == metric && r.Percentile == p {
			return r, true
		}
	}
	return report.SLOResult{}, false
}

// Regressions lists the checks that regressed, readably.
func Regressions(cs []report.BaselineCheck) []string { return regressions(cs, "a baseline of") }

// regressions is Regressions, naming what was compared with: "a baseline
// of", or "the base's" side by side.
func regressions(cs []report.BaselineCheck, with string) []string {
	var out []string
	for _, c := range cs {
		if c.Regressed {
			out = append(out, fmt.Sprintf("%s.p%g %.1f ms against %s %.1f ms (more than %.0f%% slower)",
				c.Metric, c.Percentile, c.ObservedMs, with, c.BaselineMs, 100*c.Tolerance))
		}
	}
	return out
}

package tune

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/report"
)

// Search says how Sweep looks for the knee.
type Search struct {
	// Refine is how many bisection steps follow the plan's rates.
	Refine int
	// Precision stops the bisection once the knee's bracket is within
	// this fraction of its upper end (0: run every refinement).
	Precision float64
	// Variants, when set, runs one sweep per server variant (a string of
	// vLLM serve flags added to the target's own) on a server started with
	// them, and reports them side by side; the target must then be a
	// Variable.
	Variants []string
}

// Sweep finds the highest rate that meets every SLO: it runs the plan's
// rates in ascending order until a step fails, then bisects between the
// last pass and the first failure Refine times. A step whose measurement
// is invalid stops the search (its rate cannot be judged). The report's
// Capacity holds the bracket; with Variants, Report.Variants holds each
// variant's.
func Sweep(ctx context.Context, plan load.Plan, search Search) (*report.Report, error) {
	if len(search.Variants) > 0 {
		return sweepVariants(ctx, plan, search)
	}
	if plan.Shard.Sharded() {
		// Each rate is chosen from the last step's verdict, which a shard
		// alone cannot know.
		return nil, errors.New("a sweep cannot be sharded: run the shards with fixed rates and merge them")
	}
	if plan.Baseline != nil {
		// Bisection picks rates no recorded run has: nothing to compare.
		return nil, errors.New("a sweep is not compared with a baseline (Plan.Baseline): gate fixed rates against one")
	}
	if a := plan.Arrival; a.Kind == arrival.Trace && a.Speed > 0 {
		return nil, fmt.Errorf("arrival %s replays the trace at its own pace, one rate: a sweep needs rates (arrival trace, without a speed)", a)
	}
	s, err := load.Open(ctx, plan)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	s.OpenEnded() // bisection runs as many steps as it needs
	rep, err := sweep(ctx, search.Refine, search.Precision, slices.Sorted(slices.Values(plan.Rates)), func(rate float64) (report.Verdict, error) {
		st, err := s.Step(ctx, rate)
		if st == nil {
			return report.VerdictInvalid, err
		}
		return st.Verdict, err
	})
	out := s.Report()
	describeCapacity(rep, out.Steps)
	out.Capacity = rep
	if rerr := s.CloseRecords(); rerr != nil && err == nil {
		err = rerr // the per-request records' write error, as Measure reports it
	}
	return out, err
}

// sweep is the search itself, apart from measuring: step runs one rate.
// Bisection stops after refine steps, or sooner once the bracket is within
// precision of its upper end (precision > 0).
func sweep(ctx context.Context, refine int, precision float64, rates []float64, step func(float64) (report.Verdict, error)) (*report.Capacity, error) {
	c := &report.Capacity{}
	for _, r := range rates {
		v, err := step(r)
		if err != nil || v == report.VerdictInvalid {
			return c, err
		}
		if v == report.VerdictFail {
			c.FailRate = r
			break
		}
		c.PassRate = r
	}
	if c.FailRate == 0 || c.PassRate == 0 {
		return c, nil
	}
	for range refine {
		if precision > 0 && (c.FailRate-c.PassRate)/c.FailRate <= precision {
			break
		}
		mid := (c.PassRate + c.FailRate) / 2
		v, err := step(mid)
		if err != nil || v == report.VerdictInvalid {
			return c, err
		}
		if v == report.VerdictPass {
			c.PassRate = mid
		} else {
			c.FailRate = mid
		}
		if ctx.Err() != nil {
			return c, ctx.Err()
		}
	}
	return c, nil
}

// describeCapacity adds what the steps say about the knee: the curve in rate
// order, the bracket's relative width, and what binds at the failing rate.
func describeCapacity(c *report.Capacity, steps []report.StepReport) {
	if c == nil {
		return
	}
	for i := range steps {
		st := &steps[i]
		c.Curve = append(c.Curve, report.CurvePoint{Rate: st.RateTarget, TTFTP95Ms: st.TTFT.P95, ITLP99Ms: st.ITL.P99, Verdict: st.Verdict})
		if st.RateTarget == c.FailRate && c.FailRate > 0 {
			c.Binding = st.Binding
		}
	}
	slices.SortStableFunc(c.Curve, func(a, b report.CurvePoint) int { return cmp.Compare(a.Rate, b.Rate) })
	if c.FailRate > 0 && c.PassRate > 0 {
		c.Precision = (c.FailRate - c.PassRate) / c.FailRate
	}
}

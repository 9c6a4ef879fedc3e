package runner

import (
	"context"
	"slices"

	"github.com/llmslo/llmslo/report"
)

// Sweep finds the highest rate that meets every SLO: it runs the config's
// rates in ascending order until a step fails, then bisects between the
// last pass and the first failure refine times. A step whose measurement
// is invalid stops the search (its rate cannot be judged). The report's
// Capacity holds the bracket.
func Sweep(ctx context.Context, cfg Config, refine int) (*report.Report, error) {
	s, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	rep, err := sweep(ctx, refine, slices.Sorted(slices.Values(cfg.Rates)), func(rate float64) (report.Verdict, error) {
		st, err := s.Step(ctx, rate, 0, -1)
		if st == nil {
			return report.VerdictInvalid, err
		}
		return st.Verdict, err
	})
	s.report.Capacity = rep
	return s.report, s.finish(err)
}

// sweep is the search itself, apart from measuring: step runs one rate.
func sweep(ctx context.Context, refine int, rates []float64, step func(float64) (report.Verdict, error)) (*report.Capacity, error) {
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

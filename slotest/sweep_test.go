package slotest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load"
)

func TestSweepBracketsTheKnee(t *testing.T) {
	// A server whose capacity is 11 req/s: every rate above fails.
	judge := func(knee float64) func(float64) (load.Verdict, error) {
		return func(r float64) (load.Verdict, error) {
			if r <= knee {
				return load.VerdictPass, nil
			}
			return load.VerdictFail, nil
		}
	}
	cases := []struct {
		name       string
		knee       float64
		rates      []float64
		refine     int
		pass, fail float64
	}{
		{"bisects between the last pass and the first fail", 11, []float64{2, 4, 8, 16}, 3, 11, 12},
		{"no refinement", 11, []float64{2, 4, 8, 16}, 0, 8, 16},
		{"everything passes", 100, []float64{2, 4}, 3, 4, 0},
		{"nothing passes", 1, []float64{2, 4}, 3, 0, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := sweep(context.Background(), tc.refine, tc.rates, judge(tc.knee))
			require.NoError(t, err)
			assert.Equal(t, load.Capacity{PassRate: tc.pass, FailRate: tc.fail}, *c)
		})
	}
}

func TestSweepStopsOnAnInvalidStep(t *testing.T) {
	var ran []float64
	c, err := sweep(context.Background(), 3, []float64{1, 2, 4}, func(r float64) (load.Verdict, error) {
		ran = append(ran, r)
		if r == 2 {
			return load.VerdictInvalid, nil
		}
		return load.VerdictPass, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 2}, ran)
	assert.Equal(t, load.Capacity{PassRate: 1}, *c)
}

package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// CheckShards refuses shard reports that do not belong together: each must
// be a shard's report of the same schedule (fixture, seed, rates, arrival,
// durations, start, shard count, SLOs, judging, target) and together they
// must hold every shard index once. names label the reports in errors,
// which name the file and the field. It returns the reports ordered by
// shard index.
func CheckShards(reps []*Report, names []string) ([]*Report, error) {
	if len(reps) == 0 {
		return nil, fmt.Errorf("no shard report to merge")
	}
	for i, r := range reps {
		if r.Shard == nil {
			what := "not a shard's report (it has no shard field: run with --shard I/N)"
			if r.Merged != nil {
				what = "already a merged report"
			}
			return nil, fmt.Errorf("%s: %s", names[i], what)
		}
	}
	ref, refName := reps[0], names[0]
	for i, r := range reps[1:] {
		if f, x, y := sameRun(ref, r); f != "" {
			return nil, fmt.Errorf("%s: %s is %v, but %s's is %v: the reports are not shards of one run", names[i+1], f, y, refName, x)
		}
	}
	n := ref.Shard.Count
	byIndex := make([]*Report, n)
	where := make([]string, n)
	for i, r := range reps {
		k := r.Shard.Index
		if k < 0 || k >= n {
			return nil, fmt.Errorf("%s: shard.index %d is outside [0, %d)", names[i], k, n)
		}
		if byIndex[k] != nil {
			return nil, fmt.Errorf("%s: shard.index %d is duplicate (also %s)", names[i], k, where[k])
		}
		byIndex[k], where[k] = r, names[i]
	}
	for k, r := range byIndex {
		if r == nil {
			return nil, fmt.Errorf("shard.index %d of %d is missing: merge needs every shard's report", k, n)
		}
	}
	if err := sameSteps(byIndex, where); err != nil {
		return nil, err
	}
	return byIndex, nil
}

// sameRun names the first field in which b's run differs from a's, with
// both values; "" when none does.
func sameRun(a, b *Report) (name string, x, y any) {
	sa, sb := a.Shard, b.Shard
	type field struct {
		name string
		x, y any
	}
	fields := []field{
		{"shard.count", sa.Count, sb.Count},
		{"shard.start_at", sa.StartAt.UTC(), sb.StartAt.UTC()},
		{"seed", a.Seed, b.Seed},
		{"fixture", fixtureKey(a), fixtureKey(b)},
		{"shard.rates", sa.Rates, sb.Rates},
		{"shard.arrival", sa.Arrival, sb.Arrival},
		{"shard.duration_s", sa.DurationS, sb.DurationS},
		{"shard.warmup_s", sa.WarmupS, sb.WarmupS},
		{"shard.drain_s", sa.DrainS, sb.DrainS},
		{"shard.api", sa.API, sb.API},
		{"slo", a.SLO, b.SLO},
		{"shard.strict", sa.Strict, sb.Strict},
		{"shard.thresholds", compactJSON(sa.Thresholds), compactJSON(sb.Thresholds)},
		{"shard.lengths_advisory", sa.LengthsAdvisory, sb.LengthsAdvisory},
		{"target.url", a.Target.URL, b.Target.URL},
		{"target.model", a.Target.Model, b.Target.Model},
	}
	for _, f := range fields {
		if !reflect.DeepEqual(f.x, f.y) {
			return f.name, f.x, f.y
		}
	}
	return "", nil, nil
}

// fixtureKey is what identifies a fixture's workload: name and the joint
// length distribution, with the clipping applied.
func fixtureKey(r *Report) any {
	if r.Fixture == nil {
		return nil
	}
	f := *r.Fixture
	return struct {
		Name      string
		Requests  int
		Clipped   int
		In, Out   any
		HitRate   float64
		MeanRate  float64
		Joint     bool
		Sessioned bool
	}{f.Name, f.Requests, f.Clipped, f.InputTokens, f.OutputTokens, f.ExpectedPrefixHitRate, f.MeanRatePerS, f.Joint, f.Sessions != nil}
}

func compactJSON(b json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

// sameSteps checks that the shards ran the same steps. A shard cut short
// may hold fewer (its report is partial); the merge then holds the steps
// every shard has, marked partial.
func sameSteps(reps []*Report, names []string) error {
	ref := reps[0]
	for k, r := range reps {
		if len(r.Steps) != len(ref.Steps) && !r.Partial && !ref.Partial {
			return fmt.Errorf("%s: %d steps, but %s has %d", names[k], len(r.Steps), names[0], len(ref.Steps))
		}
		for i := range min(len(r.Steps), len(ref.Steps)) {
			a, b := &ref.Steps[i], &r.Steps[i]
			switch {
			case a.Name != b.Name:
				return fmt.Errorf("%s: steps[%d].name %s, but %s has %s", names[k], i, b.Name, names[0], a.Name)
			case a.RateTarget != b.RateTarget:
				return fmt.Errorf("%s: steps[%d].rate_target %g, but %s has %g", names[k], i, b.RateTarget, names[0], a.RateTarget)
			case a.Arrival != b.Arrival:
				return fmt.Errorf("%s: steps[%d].arrival %s, but %s has %s", names[k], i, b.Arrival, names[0], a.Arrival)
			case a.DurationS != b.DurationS || a.WarmupS != b.WarmupS:
				return fmt.Errorf("%s: steps[%d] ran %gs after %gs of warm-up, but %s's ran %gs after %gs",
					names[k], i, b.DurationS, b.WarmupS, names[0], a.DurationS, a.WarmupS)
			case b.Histograms == nil || b.Evidence == nil:
				return fmt.Errorf("%s: steps[%d] has no histograms or evidence (written before sharding existed)", names[k], i)
			}
		}
	}
	return nil
}

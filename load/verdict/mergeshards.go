package verdict

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
)

// kindSim is the target kind of a report of the in-process simulator
// (load.KindSim).
const kindSim = "sim"

// MergeShards joins the reports of the shards of one schedule into the report a
// single client sending it all would have written, and judges each merged
// step again, against the SLOs and thresholds the shards were run with
// (docs/sharding.md). names label the reports in errors; reports that do
// not belong together are refused, naming the file and the field.
func MergeShards(reps []*report.Report, names []string) (*report.Report, error) {
	ordered, err := report.CheckShards(reps, names)
	if err != nil {
		return nil, err
	}
	byIndex := make([]string, len(ordered))
	for i, r := range reps {
		byIndex[r.Shard.Index] = names[i]
	}
	ref := ordered[0]
	judging, err := ShardCriteria(ref)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", byIndex[0], err)
	}
	out := &report.Report{
		Version: report.Version, StartedAt: ref.StartedAt, Target: ref.Target, Fixture: ref.Fixture,
		Seed: ref.Seed, SLO: ref.SLO,
		Merged: &report.MergeInfo{Count: ref.Shard.Count, StartAt: ref.Shard.StartAt, Sources: byIndex},
	}
	steps := len(ref.Steps)
	var cut []string
	for k, r := range ordered {
		steps = min(steps, len(r.Steps))
		if r.StartedAt.Before(out.StartedAt) {
			out.StartedAt = r.StartedAt
		}
		if r.Partial {
			cut = append(cut, fmt.Sprintf("shard %d: %s", k, r.Reason))
		}
	}
	for i := range steps {
		parts := make([]report.ShardPart, len(ordered))
		due := 0
		for k, r := range ordered {
			st := &r.Steps[i]
			parts[k] = report.ShardPart{Index: k, Step: st}
			due += st.Due()
		}
		m, err := report.MergeStep(parts)
		if err != nil {
			return nil, err
		}
		m.SetGoodput(due)
		ev, _ := observe.EvidenceOf(&m) // MergeStep always sets the evidence
		JudgeMerged(&m, ev, judging).Apply(&m)
		out.Steps = append(out.Steps, m)
		out.Verdict = report.Worse(out.Verdict, m.Verdict)
	}
	if len(cut) > 0 {
		out.Partial, out.Reason = true, strings.Join(cut, "; ")
	}
	return out, nil
}

// ShardCriteria is what the shards' steps were judged against, read back
// from a shard's report.
func ShardCriteria(r *report.Report) (Criteria, error) {
	c := Criteria{Strict: r.Shard.Strict, LengthsAdvisory: r.Shard.LengthsAdvisory, InProcessServer: r.Target.Kind == kindSim}
	for _, sp := range r.SLO {
		s, err := SLOFromSpec(sp)
		if err != nil {
			return c, err
		}
		c.SLOs = append(c.SLOs, s)
	}
	if len(r.Shard.Thresholds) > 0 {
		if err := json.Unmarshal(r.Shard.Thresholds, &c.Thresholds); err != nil {
			return c, fmt.Errorf("shard.thresholds: %w", err)
		}
	}
	if f := r.Fixture; f != nil {
		c.ExpectedPrefixHitRate, c.MeanOutputTokens = f.ExpectedPrefixHitRate, f.OutputTokens.Mean
	}
	return c, nil
}

package verdict

import (
	"fmt"
	"math"
	"time"

	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
)

// JudgeMerged judges a step merged from shards (report.MergeStep) as Judge
// judges one client's step, on the merged figures and evidence. A starved
// shard's lateness is in them: its late sends in the merged send lag and
// window counts, its delay in the merged TTFT, so client_saturation judges
// what it did to the whole schedule. Each shard's own hazards stay listed
// in Shards; none carries over by itself (a shard's too_few_samples is
// expected of a share, and its lateness matters as much as it changed the
// merged load or figures). Like Judge, it leaves s as it was.
func JudgeMerged(s *report.StepReport, ev observe.Evidence, c Criteria) Judgement {
	return Judge(s, ev, c)
}

// SLOFromSpec reads an SLO back from the report's statement of it.
func SLOFromSpec(sp report.SLOSpec) (SLO, error) {
	s := SLO{Metric: report.Metric(sp.Metric), Percentile: sp.Percentile, MaxRate: sp.MaxRate,
		Limit: time.Duration(math.Round(sp.LimitMs * float64(time.Millisecond)))}
	if !knownMetric(s.Metric) {
		return SLO{}, fmt.Errorf("slo: unknown metric %q", sp.Metric)
	}
	return s, nil
}

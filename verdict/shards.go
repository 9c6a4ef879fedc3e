package verdict

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/llmslo/llmslo/observe"
	"github.com/llmslo/llmslo/report"
)

// JudgeMerged judges a step merged from shards (report.MergeStep) as Judge
// judges one client's step, on the merged figures and evidence, and then
// carries every shard's own client_saturation into it: a shard that could
// not keep its share of the schedule sent late, its late requests are in
// the merged figures, and one starved shard among many can hide in the
// merged send lag. The other hazards are judged on the merged data only:
// a shard's too_few_samples is expected of a share.
func JudgeMerged(s *report.StepReport, ev observe.Evidence, c Config) {
	Judge(s, ev, c)
	if c.Thresholds.IsOff(HazardClientSaturation) {
		return
	}
	var why []string
	fix := ""
	for _, sh := range s.Shards {
		for _, h := range sh.Hazards {
			if h.Kind == HazardClientSaturation {
				why = append(why, fmt.Sprintf("shard %d: %s", sh.Index, h.Message))
				fix = cmpOr(fix, h.Fix)
			}
		}
	}
	if len(why) == 0 {
		return
	}
	if i := slices.IndexFunc(s.Hazards, func(h report.Hazard) bool { return h.Kind == HazardClientSaturation }); i >= 0 {
		s.Hazards[i].Message += "; " + strings.Join(why, "; ")
	} else {
		// First, where findHazards lists it.
		s.Hazards = slices.Insert(s.Hazards, 0, report.Hazard{
			Kind:    HazardClientSaturation,
			Message: "a shard could not keep its share of the schedule: " + strings.Join(why, "; "),
			Fix:     fix,
		})
	}
	s.Verdict = verdictOf(s)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
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

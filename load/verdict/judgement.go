package verdict

import (
	"slices"

	"github.com/llmslo/llmslo/load/report"
)

// Judgement is what judging a step decided: the step's fields that the
// verdict owns. Judge returns it and leaves the step it read as it was (a
// step can be judged again, or judged where others read it, without
// holding half of one judgement); the caller writes it in with Apply.
type Judgement struct {
	SLO          []report.SLOResult
	OverCapacity *report.OverCapacity
	Hazards      []report.Hazard
	Notes        []report.Hazard
	HazardsOff   []string
	NotJudged    []report.NotJudged
	Verdict      report.Verdict
	Binding      *report.Binding
	// Baseline holds the comparison with Criteria.Baseline; BaselineErr
	// says why the step could not be compared (the baseline has no such
	// step, or did not measure the percentile), which a gate must not
	// take for a pass.
	Baseline    []report.BaselineCheck
	BaselineErr error
}

// Apply writes the judgement into s, replacing whatever judgement s held.
func (j Judgement) Apply(s *report.StepReport) {
	s.SLO, s.OverCapacity, s.Hazards, s.Notes = j.SLO, j.OverCapacity, j.Hazards, j.Notes
	s.HazardsOff, s.Verdict, s.Binding = j.HazardsOff, j.Verdict, j.Binding
	s.Baseline = j.Baseline
	s.NotJudged = j.NotJudged
}

// hasHazard reports whether the judgement found a hazard of the kind.
func (j Judgement) hasHazard(kind string) bool {
	return slices.ContainsFunc(j.Hazards, func(h report.Hazard) bool { return h.Kind == kind })
}

// hazardsToNotes moves the hazards of a step that failed anyway to its notes: a
// failure that stands whatever they say (rule 1) is one they could not
// have changed, so a step's hazards are exactly what made it invalid.
func (j *Judgement) hazardsToNotes() {
	if j.Verdict == report.VerdictInvalid || len(j.Hazards) == 0 {
		return
	}
	j.Notes = append(j.Notes, j.Hazards...)
	j.Hazards = nil
}

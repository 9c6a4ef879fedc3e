package verdict

import (
	"fmt"

	"github.com/llmslo/llmslo/load/report"
)

// HazardVersusBase is a side-by-side step whose comparison cannot be
// trusted: the base side's step was refused, and its hazard could have
// hidden a regression or made one.
const HazardVersusBase = "versus_base_invalid"

// slowsTheBaseOnly are the hazards that can only have made a base step
// slower than its server (a late client adds to every latency it
// measures): a regression found against such a step stands.
var slowsTheBaseOnly = map[string]bool{HazardClientSaturation: true}

// JudgeVersus compares st with base, the base side's step of a
// side-by-side run (the same requests sent at the same moments: paired,
// second by second), with tolerance, sets st.Versus and applies it:
//
//   - a gated percentile whose ratio interval lies wholly beyond ×(1 +
//     tolerance) fails st as a regression, unless a hazard of the base
//     step could have made the base faster than its server;
//   - a base step that was refused leaves a passing st INVALID, since its
//     hazard could have hidden a regression; st's own SLOs and hazards
//     are judged as always, and a failing st keeps its failure.
//
// A step run until decided keeps the comparison it was decided on, which
// st.Versus then holds; one that was not is compared as at a last
// baseline look (Sequential): at the confidence its looks left
// (UntilDecided.BaselineConfidence), on the seconds both sides measured.
func JudgeVersus(st, base *report.StepReport, tolerance float64) error {
	checks := st.Versus
	if u := st.UntilDecided; u == nil || !u.Decided || checks == nil {
		conf, sameSeconds := CIConfidence, false
		if u != nil && u.BaselineConfidence > 0 {
			conf, sameSeconds = u.BaselineConfidence, true
		}
		var err error
		if checks, err = compareBaseline(&report.Report{Steps: []report.StepReport{*base}}, st, true, tolerance, conf, sameSeconds); err != nil {
			return fmt.Errorf("versus: %w", err)
		}
	}
	st.Versus = checks
	regressed := Regressions(checks)
	if base.Verdict == report.VerdictInvalid {
		kinds := hazardKinds(base.Hazards)
		if len(regressed) == 0 || !onlySlowBase(base.Hazards) {
			if st.Verdict == report.VerdictPass || (st.Verdict == report.VerdictFail && len(regressed) > 0 && !failsOnItsOwn(st)) {
				st.Verdict = report.VerdictInvalid
			}
			st.Hazards = append(st.Hazards, report.Hazard{Kind: HazardVersusBase,
				Message: fmt.Sprintf("the base side's step was refused (%s): a comparison with it could be wrong either way", kinds),
				Fix:     "fix what the base side's hazard names (its report's versus.steps), then run both again"})
			return nil
		}
	}
	if len(regressed) > 0 && st.Verdict == report.VerdictPass {
		st.Verdict = report.VerdictFail
	}
	return nil
}

// onlySlowBase says every hazard is one that can only slow a base step.
func onlySlowBase(hs []report.Hazard) bool {
	for _, h := range hs {
		if !slowsTheBaseOnly[h.Kind] {
			return false
		}
	}
	return true
}

// failsOnItsOwn says the step fails for a reason of its own: an SLO, or
// over capacity.
func failsOnItsOwn(st *report.StepReport) bool {
	if st.OverCapacity != nil {
		return true
	}
	for _, r := range st.SLO {
		if !r.Pass {
			return true
		}
	}
	return false
}

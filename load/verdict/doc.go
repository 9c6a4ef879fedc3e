// Package verdict judges a step: stage 6 of the data path
// (docs/ARCHITECTURE.md), report in, verdict out, no I/O. It owns the SLO
// grammar ("ttft.p95<=500ms", "error_rate<=1%"), the judging of each SLO
// with its 95% interval, the hazards that say a measurement cannot be
// trusted (client_saturation, warm_cache, not_steady, too_few_samples,
// length_mismatch) with their thresholds, the verdict rules that combine
// them (docs/verdicts.md), the comparison with a recorded baseline or a
// base server run beside the step, the looks of a step run until decided
// (JudgeLook), and the fit's finding before the first step (JudgeFit).
//
// Judge (and JudgeSLOs, JudgeMerged) returns a Judgement, what it decided,
// and changes nothing it is given: the caller writes the judgement into its
// step with Judgement.Apply.
//
// The error-rate guard is always on: without an error_rate SLO of its own,
// a step is judged against DefaultErrorRate. A zero Thresholds means the
// defaults; a hazard is turned off only by naming it in Thresholds.Off,
// and the report lists it.
package verdict

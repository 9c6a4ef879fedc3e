package load

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
)

// versusBlock is the plan's longest alternating block, or the default.
func (p *Plan) versusBlock() time.Duration { return cmp.Or(p.VersusBlock, DefaultVersusBlock) }

// VersusBlocks are an alternating step's blocks, each one's measured
// length (arrival.ABBABlocks): nil when the window cannot be cut so.
func (p *Plan) VersusBlocks() []time.Duration {
	return arrival.ABBABlocks(p.Duration, p.versusBlock())
}

// WholeBlocks is the shortest window of at least d that the plan runs:
// for alternating blocks (VersusAlternate), d rounded up to whole seconds
// that cut into an even number of blocks (arrival.ABBAWindow); d itself
// for any other plan. Advice that names a --duration rounds through it.
func (p *Plan) WholeBlocks(d time.Duration) time.Duration {
	if p.VersusMode != VersusAlternate {
		return d
	}
	return arrival.ABBAWindow(d, p.versusBlock())
}

// checkAlternate checks what alternating blocks ask of the plan: whole
// seconds (a block's seconds pair with the other side's), an even number
// of blocks a side (as many pairs in each order), and a warm-up to leave
// out as each block's transient.
func (p *Plan) checkAlternate() error {
	b := p.versusBlock()
	switch {
	case b < time.Second || b%time.Second != 0:
		return &SettingError{Field: "VersusBlock", Value: b.String(), Problem: "want whole seconds"}
	case p.VersusBlocks() == nil:
		return &SettingError{Field: "Duration", Value: p.Duration.String(), Problem: fmt.Sprintf("alternates in an even number of blocks of whole seconds, at most %v each: want whole seconds, at least two, and with 1 s blocks an even number", b)}
	case p.Arrival.Kind == arrival.Trace:
		return &SettingError{Field: "Arrival", Value: p.Arrival.String(), Problem: "replays the trace's own times from its start: every alternating block would replay its first seconds; use a rate-driven arrival process"}
	case p.Warmup <= 0:
		return &SettingError{Field: "Warmup", Value: p.Warmup.String(), Problem: "is each block's transient, left out of both sides when the load moves: want one long enough for a queue to settle"}
	}
	return nil
}

// alternateStep runs one step at rate with the load moving between the two
// sides in blocks, in ABBA order: each block is a step of its own on its
// side (Warmup sent but not measured, then a window of VersusBlock), run
// once the block before it drained. Block k of both sides sends the same
// requests on the same schedule; each side's blocks merge into its step
// (report.MergeBlocks), judged on its own SLOs and then against the
// base's.
func (m *Measurement) alternateStep(ctx context.Context, rate float64) (*report.StepReport, error) {
	sides := [2]*Measurement{m, m.versus}
	var plans [2]stepPlan
	for i, s := range sides {
		p, err := s.nextStepPlan(rate)
		if err != nil {
			return nil, err
		}
		p.Progress = m.plan.Progress // the base's blocks shown too
		plans[i] = p
	}
	lengths := m.plan.VersusBlocks()
	n := len(lengths)
	sideName := [2]string{"this side", "the base"}
	var blocks [2][]*report.StepReport
	var errs [2]error
	var first int // the index block turn/2 starts at, on both sides
	for turn, side := range arrival.ABBA(n) {
		s, p := sides[side], plans[side]
		p.Duration = lengths[turn/2]
		p.progressName = fmt.Sprintf("%s block %d of %d, %s", stepName(p.Arrival, rate), turn/2+1, n, sideName[side])
		if turn%2 == 0 {
			first = s.next
		}
		s.next = first
		if errs[side] = s.preparePrompts(ctx, rate, p); errs[side] != nil {
			errs[side] = fmt.Errorf("prepare prompts: %w", errs[side])
			break
		}
		st, used, err := runStep(ctx, p, rate, first)
		s.next += used
		if st != nil {
			st.Blocks = []report.StepBlock{{Block: turn / 2, Turn: turn, StartedAt: st.StartedAt, WindowS: st.DurationS, Scheduled: st.Requests.Scheduled}}
			blocks[side] = append(blocks[side], st)
		}
		if errs[side] = err; err != nil {
			break
		}
	}
	var steps [2]*report.StepReport
	cut := errs[0] != nil || errs[1] != nil // a side may lack blocks: partial
	for i := range sides {
		if len(blocks[i]) > 0 {
			steps[i] = joinBlocks(plans[i], blocks[i], cut)
		}
	}
	return m.addVersusStep(steps[0], steps[1], errs[0], errs[1])
}

// joinBlocks merges one side's blocks into its step and judges it as
// runStep judges a step, on the merged figures and evidence; a run cut
// short marks it partial, whole blocks or not.
func joinBlocks(p stepPlan, blocks []*report.StepReport, cut bool) *report.StepReport {
	st, _ := report.MergeBlocks(blocks) // every block holds histograms and evidence
	st.Partial = st.Partial || cut
	due := 0
	for _, b := range blocks {
		due += b.Due()
		st.Blocks = append(st.Blocks, b.Blocks...)
	}
	st.SetGoodput(due)
	ev, _ := observe.EvidenceOf(&st) // MergeBlocks always sets the evidence
	verdict.Judge(&st, ev, p.judge).Apply(&st)
	return &st
}

package render

import (
	"fmt"
	"math"

	"github.com/llmslo/llmslo/load/report"
)

// NoteWord is how a step's notes are introduced: beside a failure they
// are what was "also found", which the failure outranks; on a pass or an
// invalid step, a "note" the reader should know of.
func NoteWord(s *report.StepReport) string {
	if s.Verdict == report.VerdictFail {
		return "also found"
	}
	return "note"
}

// AchievedInWords states the achieved rate as a reader can check it: what
// was sent within the window the schedule named, of what was due in it,
// with both counts, and the rate asked for. A report without the counts
// (from before they were kept) gives the rate alone.
func AchievedInWords(s *report.StepReport) string {
	asked := ""
	if s.RateTarget > 0 {
		asked = fmt.Sprintf(" (target %g)", s.RateTarget)
	}
	var sent, due int
	what, verb := "requests", "sent"
	switch {
	case s.Sessions != nil:
		what, verb, sent, due = "sessions", "started", s.Sessions.StartedInWindow, s.Sessions.Scheduled
	case s.Evidence != nil:
		sent, due = s.Evidence.SentInWindow, s.Evidence.Due
	}
	if due == 0 || s.DurationS <= 0 {
		return fmt.Sprintf("%.2f %s achieved%s", s.RateAchieved, s.RateUnit(), asked)
	}
	window := fmt.Sprintf("the %g s window", math.Round(s.DurationS*10)/10) // a window cut when decided is not whole seconds
	if len(s.Blocks) > 0 {
		secs := make([]float64, len(s.Blocks))
		for _, b := range s.Blocks { // a side's blocks, by their place in the step
			secs[min(b.Block, len(secs)-1)] = b.WindowS
		}
		window += " (alternating, " + blockWords(secs) + ", each after its own warm-up)"
	}
	return fmt.Sprintf("%.2f %s achieved%s: %s %d of the %d %s due in %s",
		s.RateAchieved, s.RateUnit(), asked, verb, sent, due, what, window)
}

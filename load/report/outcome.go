package report

import "fmt"

// Outcomes of a rate search (Report.Outcome). A sweep's verdict is its
// worst step's, so a sweep that found its knee reads "fail" there: the
// steps above the knee fail by design. The outcome says what was found.
const (
	// OutcomeKneeFound: a rate met every SLO and a higher one did not
	// (or every rate passed); the exit status is then 0.
	OutcomeKneeFound = "knee_found"
	// OutcomeBelowLowestRate: the lowest rate tried already failed.
	OutcomeBelowLowestRate = "below_lowest_rate"
)

// SearchOutcome is what a sweep or a tuning session found, or "" for a
// run of fixed rates and for a search whose verdict says it all (every
// rate passed, an invalid step, a run cut short, a tuning session whose
// overload gate failed).
func (r *Report) SearchOutcome() string {
	c := r.Capacity
	if c == nil || r.Partial || r.Verdict != VerdictFail {
		return ""
	}
	if r.Tune != nil && r.Tune.OverloadGate != nil && !r.Tune.OverloadGate.Pass {
		return "" // the gate's failure fails the session, knee or not
	}
	switch {
	case c.PassRate > 0:
		return OutcomeKneeFound
	case c.FailRate > 0:
		return OutcomeBelowLowestRate
	}
	return ""
}

// OutcomeText says the search's outcome in words, "" when it has none:
// "knee found: 10 req/s meets every SLO; 12 req/s does not".
func (r *Report) OutcomeText() string {
	c, unit := r.Capacity, "req/s"
	if len(r.Steps) > 0 {
		unit = r.Steps[0].RateUnit() // a session replay's rates count sessions
	}
	switch r.SearchOutcome() {
	case OutcomeKneeFound:
		if c.FailRate > 0 {
			return fmt.Sprintf("knee found: %g %s meets every SLO; %g %s does not", c.PassRate, unit, c.FailRate, unit)
		}
		return fmt.Sprintf("knee found: %g %s meets every SLO", c.PassRate, unit)
	case OutcomeBelowLowestRate:
		return fmt.Sprintf("below the lowest rate: fails at every rate tried, the lowest was %g %s", c.FailRate, unit)
	}
	return ""
}

package report

import (
	"fmt"
	"io"
)

// Judged is how many requests the server was left to finish: those sent,
// less those the caller cancelled or abandoned (a user who pressed stop
// was not failed by the server). It is the error rate's denominator.
func (c RequestCounts) Judged() int { return c.Sent - c.Canceled - c.Abandoned }

// writeAbandoned notes, under the summary table, the requests each step
// abandoned on purpose: the table's sent is more than ok plus failed by
// that many.
func writeAbandoned(w io.Writer, r *Report) {
	for i := range r.Steps {
		if n := r.Steps[i].Requests.Abandoned; n > 0 {
			fmt.Fprintf(w, "note: %s: %d requests abandoned mid-stream as planned (not failures; out of the percentiles)\n", r.Steps[i].Name, n)
		}
	}
}

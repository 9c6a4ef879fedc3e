package report

// Judged is how many requests the server was left to finish: those sent,
// less those the caller cancelled or abandoned (a user who pressed stop
// was not failed by the server). It is the error rate's denominator.
func (c RequestCounts) Judged() int { return c.Sent - c.Canceled - c.Abandoned }

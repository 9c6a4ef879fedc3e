package report

import "github.com/llmslo/llmslo/load/stats"

// Judged is how many requests the server was left to finish: those sent,
// less those the caller cancelled or abandoned (a user who pressed stop
// was not failed by the server). It is the error rate's denominator.
func (c RequestCounts) Judged() int { return c.Sent - c.Canceled - c.Abandoned }

// Unserved is how many of the judged requests the server did not serve:
// failed, shed at admission, or unfinished at the drain bound. It is the
// error rate's numerator.
func (c RequestCounts) Unserved() int { return c.Failed + c.Shed + c.Unfinished }

// ShedShare is the share of a step's judged requests that the server
// refused at admission, with its Wilson 95% interval; nil when none was.
func (c RequestCounts) ShedShare() *Share {
	if c.Shed == 0 {
		return nil
	}
	n := c.Judged()
	lo, hi := stats.WilsonInterval(int64(c.Shed), int64(n), 0.95)
	return &Share{Count: c.Shed, Of: n, Share: float64(c.Shed) / float64(max(n, 1)), CI95: [2]float64{lo, hi}}
}

// Share is a count of requests out of those judged, as a fraction with its
// Wilson 95% interval.
type Share struct {
	Count int        `json:"count"`
	Of    int        `json:"of"`
	Share float64    `json:"share"`
	CI95  [2]float64 `json:"ci95"`
}

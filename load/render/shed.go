package render

import (
	"fmt"

	"github.com/llmslo/llmslo/load/report"
)

// ShedInWords says how many of a step's requests the server refused at
// admission, their share with its 95% interval, and that they count
// against the server; empty when it refused none.
func ShedInWords(s *report.StepReport) string {
	sh := s.Shed
	if sh == nil {
		sh = s.Requests.ShedShare()
	}
	if sh == nil {
		return ""
	}
	return fmt.Sprintf("%d of %d requests shed by the server's admission control (HTTP 503): %.1f%%, 95%% interval [%.1f%%, %.1f%%]; "+
		"not served, so they count against the error rate and goodput", sh.Count, sh.Of, 100*sh.Share, 100*sh.CI95[0], 100*sh.CI95[1])
}

package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmslo/llmslo/load/report"
)

// Shed requests are shown apart from failures, with their share and its
// interval, in the step summary, the run summary and the HTML page.
func TestShedShownApart(t *testing.T) {
	s := report.StepReport{Name: "s", Requests: report.RequestCounts{Sent: 200, Completed: 150, Shed: 50}, Errors: map[string]int{}}
	s.Shed = s.Requests.ShedShare()
	want := "50 of 200 requests shed by the server's admission control (HTTP 503): 25.0%, 95% interval [19.5%, 31.4%]"
	var b bytes.Buffer
	WriteStep(&b, &s)
	if !strings.Contains(b.String(), want) {
		t.Fatalf("step summary:\n%s\nwant %q", b.String(), want)
	}
	r := &report.Report{Steps: []report.StepReport{s}}
	b.Reset()
	WriteSummary(&b, r)
	if !strings.Contains(b.String(), "s: "+want) {
		t.Fatalf("run summary:\n%s", b.String())
	}
	b.Reset()
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<th>shed</th>") || !strings.Contains(b.String(), "25.0%, 95% interval") {
		t.Fatal("the HTML page shows no shed column or share")
	}
	s.Requests.Shed, s.Shed = 0, nil
	if line := ShedInWords(&s); line != "" {
		t.Fatalf("nothing shed, yet %q", line)
	}
}

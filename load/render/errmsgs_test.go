package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmslo/llmslo/load/report"
)

// The step summary shows the server's words under the error counts, one
// quoted line each, so that a 400 says what was wrong.
func TestWriteStepShowsErrorMessages(t *testing.T) {
	s := &report.StepReport{Name: "s", Errors: map[string]int{"http_400": 3, "server_error": 1},
		ErrorMessages: map[string][]string{
			"http_400":     {"This model's maximum context length is 100 tokens.", "min_tokens must be less than or equal to max_tokens=4, got 9."},
			"server_error": {"Internal server error\n\x1b[31m"},
		}}
	var b bytes.Buffer
	WriteStep(&b, s)
	out := b.String()
	want := "  errors: http_400=3 server_error=1\n" +
		`    http_400: "This model's maximum context length is 100 tokens."` + "\n" +
		`    http_400: "min_tokens must be less than or equal to max_tokens=4, got 9."` + "\n" +
		`    server_error: "Internal server error\n\x1b[31m"` + "\n"
	if !strings.Contains(out, want) {
		t.Fatalf("summary:\n%s\nwant it to contain:\n%s", out, want)
	}
}

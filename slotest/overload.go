package slotest

import (
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
)

// WithOverload runs every rate as an overload step, past the server's
// knee, judged by the overload gate instead of the error guard that counts
// shed requests against the server: shed requests must get their 503
// within shedP99 at p99 (0: verdict.DefaultShedP99, 250 ms), admitted
// requests must meet the SLOs, none may wait past its timeout, and the
// shed share is reported with its interval. A server that queues instead
// of shedding fails with the --max-num-queued-reqs value to set.
func WithOverload(shedP99 time.Duration) Option {
	return func(c *config) { c.Overload = &verdict.Overload{ShedP99: shedP99} }
}

// logFit logs what Fit read before the first step, and its finding: a
// finding fails nothing.
func logFit(t testing.TB, f *report.Fit) {
	t.Helper()
	if f == nil {
		return
	}
	t.Log("slotest: " + f.Message)
	if f.Finding != nil {
		t.Logf("slotest: finding (%s): %s", f.Finding.Kind, f.Finding.Message)
	}
}

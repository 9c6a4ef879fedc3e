package slotest

import (
	"testing"
	"time"

	"github.com/llmslo/llmslo/load"
)

// WithCancel abandons the fraction rate of requests after after from their
// intended send time (as TTFT counts), closing the connection as a user
// pressing stop does. Which
// requests is a draw on the seed and the request's index, the same in
// every run. They are counted as requests.abandoned: not failures, and out
// of the error rate, goodput and the latency percentiles.
func WithCancel(rate float64, after time.Duration) Option {
	return func(c *config) { c.CancelRate, c.CancelAfter = rate, after }
}

// closeRecords closes the per-request records (requests.jsonl next to the
// report) and fails t when they did not all reach the file.
func closeRecords(t *testing.T, s *load.Measurement) {
	t.Helper()
	path := s.RequestsPath()
	if path == "" {
		return
	}
	if err := s.CloseRecords(); err != nil {
		t.Errorf("slotest: %v", err)
		return
	}
	t.Logf("slotest: per-request records written to %s", path)
}

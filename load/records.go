package load

import (
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/observe"
)

// RequestsFile is the per-request records' name in a report directory.
const RequestsFile = "requests.jsonl"

// validateCancel checks CancelRate and CancelAfter.
func (c *Config) validateCancel() error {
	switch {
	case math.IsNaN(c.CancelRate) || c.CancelRate < 0 || c.CancelRate > 1:
		return fmt.Errorf("cancel rate %g must lie in [0, 1]", c.CancelRate)
	case c.CancelRate > 0 && c.CancelAfter <= 0:
		return fmt.Errorf("cancel rate %g needs a positive cancel-after time", c.CancelRate)
	case c.CancelAfter < 0:
		return fmt.Errorf("cancel-after %v must not be negative", c.CancelAfter)
	}
	return nil
}

// cancelPlan is the config's planned cancellations, drawn on its seed.
func (c *Config) cancelPlan() dispatch.CancelPlan {
	return dispatch.CancelPlan{Rate: c.CancelRate, After: c.CancelAfter, Seed: c.Seed}
}

// requestsPath is where the per-request records go: RequestsOut, or
// requests.jsonl next to the report in ReportDir, or nowhere.
func (c *Config) requestsPath() string {
	switch {
	case c.RequestsOut != "":
		return c.RequestsOut
	case c.ReportDir != "":
		return filepath.Join(c.ReportDir, RequestsFile)
	}
	return ""
}

// recorder is what the step's dispatcher records into: rec, and the
// per-request records when the plan writes them.
func (p *Plan) recorder(rec *observe.Recorder, step string, start, measureFrom time.Time) dispatch.Recorder {
	if p.Records == nil {
		return rec
	}
	return p.Records.Step(rec, step, start, measureFrom)
}

// flushRecords writes out the step's records once it has ended. A write
// error sticks and is reported when the file is closed.
func (p *Plan) flushRecords() {
	if p.Records != nil {
		_ = p.Records.Flush()
	}
}

// openRecords creates the session's requests file, when one is asked for.
func (s *Session) openRecords() error {
	path := s.cfg.requestsPath()
	if path == "" {
		return nil
	}
	r, err := observe.CreateRecords(path)
	if err != nil {
		return err
	}
	s.plan.Records = r
	return nil
}

// RequestsPath is where the session writes its per-request records; empty
// when it writes none.
func (s *Session) RequestsPath() string { return s.cfg.requestsPath() }

// CloseRecords writes out and closes the per-request records the session
// opened, and says whether every record reached the file. Close closes
// them too, but only this (and Measure's error) reports a failure. It may
// be called more than once; a plan's own Records are the caller's to
// close.
func (s *Session) CloseRecords() error {
	if s.plan.Records == nil || s.cfg.requestsPath() == "" {
		return nil
	}
	return s.plan.Records.Close()
}

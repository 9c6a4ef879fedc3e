package load

import (
	"fmt"
	"math"
	"time"

	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/observe"
)

// RequestsFile is the per-request records' name in a report directory:
// where the faces put them when they write one.
const RequestsFile = "requests.jsonl"

// validateCancel checks CancelRate and CancelAfter, which mean something
// only together.
func (c *Plan) validateCancel() error {
	switch {
	case math.IsNaN(c.CancelRate) || c.CancelRate < 0 || c.CancelRate > 1:
		return &SettingError{Field: "CancelRate", Value: fmt.Sprint(c.CancelRate), Problem: "want a fraction in [0, 1]"}
	case c.CancelRate > 0 && c.CancelAfter <= 0:
		return &SettingError{Field: "CancelRate", Problem: "needs {CancelAfter}, e.g. {CancelAfter} 2s"}
	case c.CancelAfter < 0:
		return &SettingError{Field: "CancelAfter", Value: c.CancelAfter.String(), Problem: "want a positive duration"}
	case c.CancelAfter > 0 && c.CancelRate == 0:
		return &SettingError{Field: "CancelAfter", Problem: "needs {CancelRate}, e.g. {CancelRate} 0.1"}
	}
	return nil
}

// cancelPlan is the config's planned cancellations, drawn on its seed.
func (c *Plan) cancelPlan() dispatch.CancelPlan {
	return dispatch.CancelPlan{Rate: c.CancelRate, After: c.CancelAfter, Seed: c.Seed}
}

// recorder is what the step's dispatcher records into: rec, and the
// per-request records when the plan writes them.
func (p *stepPlan) recorder(rec *observe.Recorder, step string, start, measureFrom time.Time) dispatch.Recorder {
	if p.Records == nil {
		return rec
	}
	return p.Records.Step(rec, step, start, measureFrom)
}

// flushRecords writes out the step's records once it has ended. A write
// error sticks and is reported when the file is closed.
func (p *stepPlan) flushRecords() {
	if p.Records != nil {
		_ = p.Records.Flush()
	}
}

// openRecords creates the measurement's requests file, when one is asked for.
func (s *Measurement) openRecords() error {
	path := s.engine.RequestsOut
	if path == "" {
		return nil
	}
	r, err := observe.CreateRecords(path)
	if err != nil {
		return err
	}
	s.engine.Records = r
	return nil
}

// RequestsPath is where the measurement writes its per-request records; empty
// when it writes none.
func (s *Measurement) RequestsPath() string { return s.engine.RequestsOut }

// CloseRecords writes out and closes the per-request records the measurement
// opened, and says whether every record reached the file. Close closes
// them too, but only this (and Measure's error) reports a failure. It may
// be called more than once; a plan's own Records are the caller's to
// close.
func (s *Measurement) CloseRecords() error {
	if s.engine.Records == nil || s.engine.RequestsOut == "" {
		return nil
	}
	return s.engine.Records.Close()
}

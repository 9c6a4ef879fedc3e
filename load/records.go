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
func (p *Plan) validateCancel() error {
	switch {
	case math.IsNaN(p.CancelRate) || p.CancelRate < 0 || p.CancelRate > 1:
		return &SettingError{Field: "CancelRate", Value: fmt.Sprint(p.CancelRate), Problem: "want a fraction in [0, 1]"}
	case p.CancelRate > 0 && p.CancelAfter <= 0:
		return &SettingError{Field: "CancelRate", Problem: "needs {CancelAfter}, e.g. {CancelAfter} 2s"}
	case p.CancelAfter < 0:
		return &SettingError{Field: "CancelAfter", Value: p.CancelAfter.String(), Problem: "want a positive duration"}
	case p.CancelAfter > 0 && p.CancelRate == 0:
		return &SettingError{Field: "CancelAfter", Problem: "needs {CancelRate}, e.g. {CancelRate} 0.1"}
	}
	return nil
}

// cancelPlan is the config's planned cancellations, drawn on its seed.
func (p *Plan) cancelPlan() dispatch.CancelPlan {
	return dispatch.CancelPlan{Rate: p.CancelRate, After: p.CancelAfter, Seed: p.Seed}
}

// recorder is what the step's dispatcher records into: rec, and the
// per-request records when the plan writes them.
func (p *stepPlan) recorder(rec *observe.Recorder, step string, start, measureFrom time.Time) dispatch.OutcomeSink {
	if p.Records == nil {
		return rec
	}
	return p.Records.Tee(rec, step, start, measureFrom)
}

// flushRecords writes out the step's records once it has ended. A write
// error sticks and is reported when the file is closed.
func (p *stepPlan) flushRecords() {
	if p.Records != nil {
		_ = p.Records.Flush()
	}
}

// openRecords creates the measurement's requests file, when one is asked for.
func (m *Measurement) openRecords() error {
	path := m.plan.RequestsOut
	if path == "" {
		return nil
	}
	r, err := observe.CreateRecords(path)
	if err != nil {
		return err
	}
	m.plan.Records = r
	return nil
}

// RequestsPath is where the measurement writes its per-request records; empty
// when it writes none.
func (m *Measurement) RequestsPath() string { return m.plan.RequestsOut }

// CloseRecords writes out and closes the per-request records the measurement
// opened, and says whether every record reached the file. Close closes
// them too, but only this (and Measure's error) reports a failure. It may
// be called more than once; a plan's own Records are the caller's to
// close.
func (m *Measurement) CloseRecords() error {
	if m.plan.Records == nil || m.plan.RequestsOut == "" {
		return nil
	}
	return m.plan.Records.Close()
}

package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
)

// DefaultBaselineTolerance is how much slower than its baseline a gated
// percentile may be before it counts as a regression.
const DefaultBaselineTolerance = 0.10

// ReadBaseline reads a recorded report. A missing file is an error for
// which BaselineMissing is true.
func ReadBaseline(path string) (*report.Report, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no baseline at %s: %w", path, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	var r report.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}
	return &r, nil
}

// BaselineMissing reports whether err says the baseline must be recorded
// (again): the file is missing, or it lacks a step or percentile the run
// gates. Each face adds how its users record one.
func BaselineMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, verdict.ErrBaselineStep)
}

// RecordBaseline writes the run's report as the baseline at path, refusing
// one that was cut short or cannot be trusted.
func RecordBaseline(r *report.Report, path string) error {
	switch {
	case r.Partial:
		return fmt.Errorf("not recording a baseline from a run cut short (%s)", r.Reason)
	case r.Verdict == report.VerdictInvalid:
		return errors.New("not recording a baseline from a measurement that cannot be trusted; see the hazards")
	}
	if err := r.WriteJSON(path); err != nil {
		return fmt.Errorf("record baseline: %w", err)
	}
	return nil
}

package load

import (
	"cmp"
	"time"

	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
)

// Progress watches a run as it goes: the faces show it, as a live line on a
// terminal or a sparse log elsewhere (internal/progress). It is told when a
// step starts and ends, and reads the step's counts on its own clock in
// between: nothing on the send path waits for it.
type Progress interface {
	// StepStarted is called as a step opens, before its first send. The
	// returned stop is called once the step's requests are done; the
	// watcher must not read Snapshot after it returns.
	StepStarted(StepProgress) (stop func())
	// StepEnded is called with each step's report once it is judged
	// (and compared with a baseline), by a Measurement.
	StepEnded(*report.StepReport)
}

// FitWatcher is a Progress that is also told what Fit read, before the
// first step.
type FitWatcher interface {
	Fit(*report.Fit)
}

// StepProgress describes a running step to a Progress.
type StepProgress struct {
	Name string
	// Index is the step's place in the run, from 1; Count the steps the
	// run will take, 0 when not known ahead (a sweep bisects as far as it
	// needs).
	Index, Count int
	// Start is the first send's time (the warm-up's start), MeasureFrom
	// the measured window's, which lasts Duration; then the step drains.
	Start, MeasureFrom time.Time
	Duration           time.Duration
	// Snapshot reads the step's counts so far; safe from any goroutine.
	Snapshot func() observe.Snapshot
}

// startProgress tells the plan's Progress that the frame's step starts,
// and returns what stops it.
func (f *stepFrame) startProgress() func() {
	p := f.p
	if p.Progress == nil {
		return func() {}
	}
	return p.Progress.StepStarted(StepProgress{
		Name: cmp.Or(p.progressName, f.name), Index: p.StepIndex, Count: p.StepCount,
		Start: f.start, MeasureFrom: f.measureFrom, Duration: p.Duration,
		Snapshot: f.rec.Snapshot,
	})
}

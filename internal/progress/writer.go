package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
)

// How often each form writes: a terminal redraw often enough for the bar
// to move smoothly, a log line seldom enough that a long run's log stays
// readable.
const (
	TerminalEvery = 250 * time.Millisecond
	PlainEvery    = 10 * time.Second
)

// clearLine returns the cursor to the line's start and clears it (ANSI EL).
const clearLine = "\r\x1b[K"

// barWidth is the live bar's width in cells.
const barWidth = 20

// Clock is what a Writer reads the time from and draws on; tests pass a
// fake one.
type Clock interface {
	Now() time.Time
	NewTicker(d time.Duration) Ticker
}

// Ticker is a time.Ticker behind an interface.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

type realClock struct{}

func (realClock) Now() time.Time                   { return time.Now() }
func (realClock) NewTicker(d time.Duration) Ticker { return realTicker{time.NewTicker(d)} }

type realTicker struct{ t *time.Ticker }

func (r realTicker) C() <-chan time.Time { return r.t.C }
func (r realTicker) Stop()               { r.t.Stop() }

// Writer writes a run's progress to an io.Writer, live or plain. It
// implements load.Progress; one Writer serves one run's steps in turn.
type Writer struct {
	out   io.Writer
	live  bool
	every time.Duration
	width int
	clock Clock

	mu    sync.Mutex
	dirty bool   // a live line is on screen, not ended by a newline
	place string // the running step's place, for its summary row
}

// Option adjusts a Writer.
type Option func(*Writer)

// WithClock makes the Writer read time and tick on c.
func WithClock(c Clock) Option { return func(w *Writer) { w.clock = c } }

// WithEvery sets how often the Writer draws.
func WithEvery(d time.Duration) Option { return func(w *Writer) { w.every = d } }

// WithWidth cuts live lines to fit a terminal n columns wide: a line that
// wrapped could not be redrawn in place.
func WithWidth(n int) Option { return func(w *Writer) { w.width = n } }

// Terminal redraws one live line per running step on out, a terminal.
func Terminal(out io.Writer, opts ...Option) *Writer {
	return newWriter(out, true, TerminalEvery, opts)
}

// Plain writes a line every PlainEvery and one per step's end on out,
// which is not a terminal.
func Plain(out io.Writer, opts ...Option) *Writer {
	return newWriter(out, false, PlainEvery, opts)
}

func newWriter(out io.Writer, live bool, every time.Duration, opts []Option) *Writer {
	w := &Writer{out: out, live: live, every: every, clock: realClock{}}
	for _, o := range opts {
		o(w)
	}
	return w
}

// StepStarted shows the step until the returned stop is called: a live
// line at once and at each tick, or a plain line at each tick.
func (w *Writer) StepStarted(s load.StepProgress) func() {
	w.mu.Lock()
	w.place = place(s)
	w.mu.Unlock()
	if w.live {
		w.draw(s, w.clock.Now())
	}
	t := w.clock.NewTicker(w.every)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C():
				w.draw(s, now)
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(stop); <-done }) }
}

// StepEnded writes the step's summary row, over the live line on a
// terminal.
func (w *Writer) StepEnded(st *report.StepReport) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.endLine()
	fmt.Fprintln(w.out, Row(w.place, st))
}

// draw writes the step's state at now: the live line redrawn, or a line.
func (w *Writer) draw(s load.StepProgress, now time.Time) {
	snap := s.Snapshot()
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.live {
		fmt.Fprintln(w.out, plainLine(s, now, snap))
		return
	}
	line := liveLine(s, now, snap)
	if w.width > 1 && utf8.RuneCountInString(line) > w.width-1 {
		line = string([]rune(line)[:w.width-1]) // the last column would wrap on some terminals
	}
	io.WriteString(w.out, clearLine+line)
	w.dirty = true
}

// endLine clears a live line left on screen, so what follows starts a
// clean line.
func (w *Writer) endLine() {
	if w.dirty {
		io.WriteString(w.out, clearLine)
		w.dirty = false
	}
}

// phase is where a step is at now: its name, the time elapsed since its
// first send (capped at the warm-up and window's total, the bar's end),
// the time it has drained, and the counts that phase shows.
type phase struct {
	name           string
	elapsed, total time.Duration
	drained        time.Duration
	counts         observe.Counts
	ttftP95        time.Duration // zero while there is none to show
}

func phaseAt(s load.StepProgress, now time.Time, snap observe.Snapshot) phase {
	end := s.MeasureFrom.Add(s.Duration)
	p := phase{total: end.Sub(s.Start), elapsed: max(now.Sub(s.Start), 0), counts: snap.Counts, ttftP95: snap.TTFTP95}
	switch {
	case now.Before(s.MeasureFrom):
		// The warm-up's requests are not measured: show them, and no
		// TTFT, which only measured ones have.
		p.name, p.counts, p.ttftP95 = "warm-up", snap.Warmup, 0
	case now.Before(end):
		p.name = "measure"
	default:
		p.name, p.elapsed, p.drained = "drain", p.total, now.Sub(end)
	}
	return p
}

// liveLine is the terminal's line: place, phase and bar, counts.
func liveLine(s load.StepProgress, now time.Time, snap observe.Snapshot) string {
	p := phaseAt(s, now, snap)
	t := secs(p.elapsed) + "/" + secs(p.total)
	if p.name == "drain" {
		t += " +" + secs(p.drained)
	}
	return fmt.Sprintf("%s  %-7s [%s] %s  sent %d  in flight %d  done %d  failed %d  ttft p95 %s",
		placed(place(s), s.Name), p.name, bar(p.elapsed, p.total), t,
		p.counts.Sent, p.counts.InFlight, p.counts.Completed, p.counts.Failed, msOf(p.ttftP95))
}

// plainLine is a log's line: the same figures, without the bar.
func plainLine(s load.StepProgress, now time.Time, snap observe.Snapshot) string {
	p := phaseAt(s, now, snap)
	t := secs(p.elapsed) + " of " + secs(p.total)
	if p.name == "drain" {
		t = secs(p.drained)
	}
	return fmt.Sprintf("%s: %s %s, sent %d, in flight %d, done %d, failed %d, ttft p95 %s",
		placed(place(s), s.Name), p.name, t,
		p.counts.Sent, p.counts.InFlight, p.counts.Completed, p.counts.Failed, msOf(p.ttftP95))
}

// Row is a finished step's summary line: its name, verdict, achieved rate,
// TTFT p95 and ITL p99; where is its place in the run, if known.
func Row(where string, st *report.StepReport) string {
	v := strings.ToUpper(string(st.Verdict))
	if v == "" {
		v = "NO VERDICT"
	}
	if st.Partial {
		v += " (partial)"
	}
	return fmt.Sprintf("%s  %s  %.2f %s  ttft p95 %s  itl p99 %s", placed(where, st.Name), v,
		st.RateAchieved, st.RateUnit(), msCell(st.TTFT.P95, st.TTFT.Count), msCell(st.ITL.P99, st.ITL.Count))
}

// place is "step 2 of 3", or "step 2" when the count is not known.
func place(s load.StepProgress) string {
	switch {
	case s.Index <= 0:
		return ""
	case s.Count >= s.Index:
		return fmt.Sprintf("step %d of %d", s.Index, s.Count)
	}
	return fmt.Sprintf("step %d", s.Index)
}

func placed(where, name string) string {
	if where == "" {
		return name
	}
	return where + "  " + name
}

// bar is elapsed against total as barWidth cells.
func bar(elapsed, total time.Duration) string {
	n := barWidth
	if total > 0 && elapsed < total {
		n = int(int64(barWidth) * int64(elapsed) / int64(total))
	}
	return strings.Repeat("=", n) + strings.Repeat(" ", barWidth-n)
}

// secs is d in whole seconds, as a duration reads ("41s", "1m10s").
func secs(d time.Duration) string { return d.Truncate(time.Second).String() }

func msOf(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

func msCell(v float64, n int64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f ms", v)
}

// Fit prints what Fit read before the first step, and its finding.
func (w *Writer) Fit(f *report.Fit) {
	if f == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintln(w.out, f.Message)
	if f.Finding != nil {
		fmt.Fprintf(w.out, "finding (%s): %s\n", f.Finding.Kind, f.Finding.Message)
	}
}

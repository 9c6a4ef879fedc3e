package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a step's ticker goroutine
// outlives them.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeClock ticks only when told to. A tick is handed over on an
// unbuffered channel, so Advance returns once the writer has taken it, and
// the writer's stop waits for the draw it started.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	tickers []*fakeTicker
}

type fakeTicker struct {
	c       chan time.Time
	every   time.Duration
	next    time.Time
	stopped bool
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) NewTicker(d time.Duration) Ticker {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTicker{c: make(chan time.Time), every: d, next: f.now.Add(d)}
	f.tickers = append(f.tickers, t)
	return fakeTick{f, t}
}

type fakeTick struct {
	f *fakeClock
	t *fakeTicker
}

func (t fakeTick) C() <-chan time.Time { return t.t.c }
func (t fakeTick) Stop() {
	t.f.mu.Lock()
	t.t.stopped = true
	t.f.mu.Unlock()
}

// Advance moves the clock on by d, firing each tick due on the way, in
// order.
func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	target := f.now.Add(d)
	f.mu.Unlock()
	for {
		f.mu.Lock()
		var due *fakeTicker
		for _, t := range f.tickers {
			if !t.stopped && !t.next.After(target) && (due == nil || t.next.Before(due.next)) {
				due = t
			}
		}
		if due == nil {
			f.now = target
			f.mu.Unlock()
			return
		}
		f.now, due.next = due.next, due.next.Add(due.every)
		at := f.now
		f.mu.Unlock()
		due.c <- at
	}
}

// syncBuffer is the writer's output, read while its goroutine writes.
// Advance returns once a tick is taken, not drawn: a test waits for the
// draw (waitFor) before it changes what the next one reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the output holds n copies of sep.
func (s *syncBuffer) waitFor(t *testing.T, sep string, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); strings.Count(s.String(), sep) < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited for %d of %q in %q", n, sep, s.String())
		}
	}
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// scripted is a step of 2 s warm-up and 4 s measured window whose
// snapshot is whatever the test last set.
type scripted struct {
	mu   sync.Mutex
	snap observe.Snapshot
}

func (s *scripted) set(p observe.Snapshot) { s.mu.Lock(); s.snap = p; s.mu.Unlock() }
func (s *scripted) get() observe.Snapshot  { s.mu.Lock(); defer s.mu.Unlock(); return s.snap }

func step(s *scripted, index, count int) load.StepProgress {
	return load.StepProgress{Name: "rate=4", Index: index, Count: count, Start: t0, MeasureFrom: t0.Add(2 * time.Second),
		Duration: 4 * time.Second, Snapshot: s.get}
}

func stepReport() *report.StepReport {
	return &report.StepReport{Name: "rate=4", Verdict: report.VerdictPass, RateAchieved: 3.98,
		TTFT: stats.Summary{Count: 16, P95: 88.24}, ITL: stats.Summary{Count: 900, P99: 40.06}}
}

func TestTerminalRedrawsOneLineInPlaceAndLeavesTheRow(t *testing.T) {
	clk := &fakeClock{now: t0}
	var out syncBuffer
	w := Terminal(&out, WithClock(clk), WithEvery(time.Second))
	src := &scripted{}
	src.set(observe.Snapshot{Warmup: observe.Counts{Sent: 3, InFlight: 3}})
	stop := w.StepStarted(step(src, 2, 3))
	clk.Advance(time.Second)
	out.waitFor(t, clearLine, 2)
	src.set(observe.Snapshot{Counts: observe.Counts{Sent: 5, InFlight: 1, Completed: 4}, TTFTP95: 88200 * time.Microsecond,
		Warmup: observe.Counts{Sent: 8, Completed: 8}})
	clk.Advance(2 * time.Second) // the window opens at 2 s
	clk.Advance(4 * time.Second) // it closes at 6 s: the step drains
	stop()
	w.StepEnded(stepReport())

	want := "\r\x1b[Kstep 2 of 3  rate=4  warm-up [                    ] 0s/6s  sent 3  in flight 3  done 0  failed 0  ttft p95 -" +
		"\r\x1b[Kstep 2 of 3  rate=4  warm-up [===                 ] 1s/6s  sent 3  in flight 3  done 0  failed 0  ttft p95 -" +
		"\r\x1b[Kstep 2 of 3  rate=4  measure [======              ] 2s/6s  sent 5  in flight 1  done 4  failed 0  ttft p95 88.2 ms" +
		"\r\x1b[Kstep 2 of 3  rate=4  measure [==========          ] 3s/6s  sent 5  in flight 1  done 4  failed 0  ttft p95 88.2 ms" +
		"\r\x1b[Kstep 2 of 3  rate=4  measure [=============       ] 4s/6s  sent 5  in flight 1  done 4  failed 0  ttft p95 88.2 ms" +
		"\r\x1b[Kstep 2 of 3  rate=4  measure [================    ] 5s/6s  sent 5  in flight 1  done 4  failed 0  ttft p95 88.2 ms" +
		"\r\x1b[Kstep 2 of 3  rate=4  drain   [====================] 6s/6s +0s  sent 5  in flight 1  done 4  failed 0  ttft p95 88.2 ms" +
		"\r\x1b[Kstep 2 of 3  rate=4  drain   [====================] 6s/6s +1s  sent 5  in flight 1  done 4  failed 0  ttft p95 88.2 ms" +
		"\r\x1b[K" +
		"step 2 of 3  rate=4  PASS  3.98 req/s  ttft p95 88.2 ms  itl p99 40.1 ms\n"
	assert.Equal(t, want, out.String())
}

func TestTerminalCutsTheLineToTheWidth(t *testing.T) {
	clk := &fakeClock{now: t0}
	var out bytes.Buffer
	w := Terminal(&out, WithClock(clk), WithWidth(30))
	stop := w.StepStarted(step(&scripted{}, 1, 1))
	stop()
	assert.Equal(t, "\r\x1b[Kstep 1 of 1  rate=4  warm-up ", out.String(), "29 columns: a wrapped line could not be redrawn")
}

func TestPlainWritesEveryTenSecondsAndAtEachStepsEnd(t *testing.T) {
	clk := &fakeClock{now: t0}
	var out syncBuffer
	w := Plain(&out, WithClock(clk))
	src := &scripted{}
	s := step(src, 1, 2)
	s.MeasureFrom, s.Duration = t0.Add(10*time.Second), 25*time.Second
	stop := w.StepStarted(s)
	for i := range 45 { // a second at a time, as a live display would
		src.set(observe.Snapshot{Counts: observe.Counts{Sent: i, Completed: i}, Warmup: observe.Counts{Sent: 40, InFlight: 2}})
		clk.Advance(time.Second)
		out.waitFor(t, "\n", (i+1)/10)
		if i == 8 {
			assert.Empty(t, out.String(), "nothing before the first 10 s")
		}
	}
	stop()
	w.StepEnded(stepReport())
	s.Index = 2
	stop = w.StepStarted(s) // the next step: nothing until its own 10 s
	clk.Advance(9 * time.Second)
	stop()
	st := stepReport()
	st.Name, st.Verdict, st.Partial = "rate=4", report.VerdictFail, true
	w.StepEnded(st)

	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	assert.Equal(t, []string{
		"step 1 of 2  rate=4: measure 10s of 35s, sent 9, in flight 0, done 9, failed 0, ttft p95 -",
		"step 1 of 2  rate=4: measure 20s of 35s, sent 19, in flight 0, done 19, failed 0, ttft p95 -",
		"step 1 of 2  rate=4: measure 30s of 35s, sent 29, in flight 0, done 29, failed 0, ttft p95 -",
		"step 1 of 2  rate=4: drain 5s, sent 39, in flight 0, done 39, failed 0, ttft p95 -",
		"step 1 of 2  rate=4  PASS  3.98 req/s  ttft p95 88.2 ms  itl p99 40.1 ms",
		"step 2 of 2  rate=4  FAIL (partial)  3.98 req/s  ttft p95 88.2 ms  itl p99 40.1 ms",
	}, lines)
	assert.NotContains(t, out.String(), "\r", "no redraws off a terminal")
	assert.NotContains(t, out.String(), "\x1b")
}

func TestRowsOfSessionStepsAndUnknownCounts(t *testing.T) {
	st := stepReport()
	st.Sessions = &report.SessionCounts{Started: 3}
	st.ITL = stats.Summary{}
	assert.Equal(t, "step 4  rate=4  PASS  3.98 sessions/s  ttft p95 88.2 ms  itl p99 -",
		Row(place(load.StepProgress{Index: 4}), st), "a sweep does not know its count ahead")
	assert.Equal(t, "rate=4  PASS  3.98 sessions/s  ttft p95 88.2 ms  itl p99 -", Row("", st))
}

// A recorder fed warm-up outcomes shows them in its snapshot, apart from
// the measured ones, and the live line shows them during the warm-up.
func TestWarmupCountsReachTheLine(t *testing.T) {
	rec := observe.NewRecorder(t0.Add(2*time.Second), 4*time.Second, observe.PerRequestLimits{}, observe.LengthCheck{})
	warm := t0.Add(500 * time.Millisecond)
	for range 3 {
		rec.Started(warm)
	}
	rec.Record(&client.Outcome{Intended: warm, Sent: warm, First: warm.Add(time.Millisecond), Last: warm.Add(time.Second)}, warm.Add(time.Second))
	rec.Record(&client.Outcome{Intended: warm, Sent: warm, Class: client.ClassReset}, warm.Add(time.Second))
	clk := &fakeClock{now: t0.Add(time.Second)}
	var out bytes.Buffer
	w := Terminal(&out, WithClock(clk))
	s := step(nil, 1, 1)
	s.Snapshot = rec.Snapshot
	w.StepStarted(s)()
	assert.Contains(t, out.String(), "warm-up [===                 ] 1s/6s  sent 3  in flight 1  done 1  failed 1  ttft p95 -")
	assert.Equal(t, observe.Counts{}, rec.Snapshot().Counts, "the warm-up is not measured")
}

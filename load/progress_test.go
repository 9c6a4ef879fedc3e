package load

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// watcher is a Progress that notes what it is told, in order.
type watcher struct {
	mu     sync.Mutex
	events []string
	last   observe.Snapshot // the last step's snapshot, read as it stopped
}

func (w *watcher) note(format string, a ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, fmt.Sprintf(format, a...))
}

func (w *watcher) StepStarted(s StepProgress) func() {
	w.note("start %s %d of %d, warm-up %v, window %v", s.Name, s.Index, s.Count, s.MeasureFrom.Sub(s.Start), s.Duration)
	return func() {
		snap := s.Snapshot()
		w.mu.Lock()
		w.last = snap
		w.mu.Unlock()
		w.note("stop %s", s.Name)
	}
}

func (w *watcher) StepEnded(st *report.StepReport) { w.note("end %s %s", st.Name, st.Verdict) }

func TestProgressSeesEachStepsPlaceAndEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	srv := simtest.Start(t, capacityServer)
	c := engineClient(t, srv.URL)
	var w watcher
	p := handPlan(c, fixedWorkload(16, 2), []float64{4, 6}, time.Second, plantest.MustSLOs(t, "ttft.p95<=5s"))
	p.Warmup = time.Second
	p.DrainTimeout = 5 * time.Second
	p.Progress = &w
	rep, err := runPlan(context.Background(), p)
	require.NoError(t, err)
	require.Len(t, rep.Steps, 2)
	assert.Equal(t, []string{
		"start rate=4 1 of 2, warm-up 1s, window 1s", "stop rate=4", "end rate=4 " + string(rep.Steps[0].Verdict),
		"start rate=6 2 of 2, warm-up 1s, window 1s", "stop rate=6", "end rate=6 " + string(rep.Steps[1].Verdict),
	}, w.events, "stopped before its row, each step in its place")
	warm := w.last.Warmup
	assert.Equal(t, 6, warm.Sent, "a 1 s warm-up at 6/s")
	assert.Equal(t, warm.Sent, warm.Completed+warm.Failed, "all ended by the stop")
	assert.Equal(t, rep.Steps[1].Requests.Sent, w.last.Sent)
}

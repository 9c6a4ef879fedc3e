package observe

import (
	"bytes"
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/stretchr/testify/assert"
)

// The warm-up's requests are counted for progress, apart from the measured
// ones, which they never enter.
func TestProgressCountsTheWarmupApart(t *testing.T) {
	t0 := time.Now()
	rec := NewRecorder(t0.Add(10*time.Second), 10*time.Second, PerRequestLimits{}, LengthCheck{})
	warm := func(class client.ErrorClass) *client.Outcome {
		in := t0.Add(time.Second)
		o := &client.Outcome{Intended: in, Sent: in, Class: class}
		if class == "" {
			o.First, o.Last = in.Add(50*time.Millisecond), in.Add(time.Second)
		}
		return o
	}
	outcomes := []*client.Outcome{warm(""), warm(""), warm(client.ClassReset), warm(client.ClassUnfinished), warm(client.ClassAbandoned)}
	for range len(outcomes) + 2 { // two still in flight
		rec.Started(t0.Add(time.Second))
	}
	for _, o := range outcomes {
		rec.Record(o, o.Intended.Add(time.Second))
	}
	in := t0.Add(11 * time.Second) // one measured request, in flight
	rec.Started(in)

	p := rec.Snapshot()
	assert.Equal(t, Counts{Sent: 7, InFlight: 2, Completed: 2, Failed: 2}, p.Warmup,
		"an abandoned request is neither done nor failed")
	assert.Equal(t, Counts{Sent: 1, InFlight: 1}, p.Counts)
	assert.Zero(t, p.TTFTP95, "the warm-up's TTFT is not measured")
	st, _ := rec.Summary()
	assert.Zero(t, st.Requests.Completed+st.Requests.Failed, "the warm-up enters no measurement")
}

// A session replay reports a warm-up session's turns only as they end:
// Turns passes them on to be counted, with or without records.
func TestTurnsCountWarmupSessionsTurns(t *testing.T) {
	t0 := time.Now()
	for _, withRecords := range []bool{false, true} {
		rec := NewRecorder(t0.Add(10*time.Second), 10*time.Second, PerRequestLimits{}, LengthCheck{})
		var sink TurnSink = rec
		var buf bytes.Buffer
		if withRecords {
			records := NewRecords(&buf)
			defer records.Close()
			sink = records.Tee(rec, "rate=1", t0, t0.Add(10*time.Second))
		}
		tr := NewTurns(sink)
		// A warm-up session's later turn, due after the window opened.
		in := t0.Add(12 * time.Second)
		tr.Unmeasured(&client.Outcome{Intended: in, Sent: in, First: in.Add(time.Millisecond), Last: in.Add(time.Second)}, in.Add(time.Second))
		tr.Unmeasured(&client.Outcome{Intended: in, Sent: in, Class: client.ClassReset}, in.Add(time.Second))
		tr.Unmeasured(&client.Outcome{Intended: in, Class: client.ClassCanceled}, in) // never sent
		p := rec.Snapshot()
		assert.Equal(t, Counts{Sent: 2, Completed: 1, Failed: 1}, p.Warmup, "records %v", withRecords)
		assert.Equal(t, Counts{}, p.Counts, "records %v", withRecords)
	}
}

package observe

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/report"
)

// The window's counts are exact: due counts the measured requests whose
// time came within the window (a session's turn due after its end is
// measured, but not the window's), sent those of them that went out
// before it ended; the achieved rate is the second over the window.
func TestWindowCountsAreExact(t *testing.T) {
	t0 := time.Now()
	rec := NewRecorder(t0, 4*time.Second, PerRequestLimits{}, LengthCheck{})
	send := func(intended, late time.Duration) {
		o := &client.Outcome{Intended: t0.Add(intended), Sent: t0.Add(intended + late)}
		o.First, o.Last = o.Sent.Add(time.Millisecond), o.Sent.Add(2*time.Millisecond)
		rec.Started(o.Intended)
		rec.Record(o, o.Last)
	}
	send(-500*time.Millisecond, 0)                     // the warm-up's: not measured
	send(100*time.Millisecond, time.Millisecond)       // second 0
	send(1500*time.Millisecond, 0)                     // second 1
	send(1600*time.Millisecond, 1200*time.Millisecond) // due in second 1, sent in second 2
	send(3990*time.Millisecond, 20*time.Millisecond)   // due in the window, sent after it
	send(4500*time.Millisecond, 0)                     // a later turn due after the window
	rec.Dropped(t0.Add(2 * time.Second))               // due, never sent

	s, ev := rec.Summary()
	assert.Equal(t, 5, ev.Due, "four sent or late, one dropped; neither the warm-up's nor the one after the end")
	assert.Equal(t, 3, ev.SentInWindow)
	assert.Equal(t, []int{1, 2, 1, 1}, ev.DuePerS)
	assert.Equal(t, []int{1, 1, 1, 0, 2}, ev.SentPerS, "sends by the second they went out, past the end too")
	assert.Equal(t, 3/4.0, s.RateAchieved)
	back, ok := EvidenceOf(&report.StepReport{DurationS: 4, Evidence: rec.ReportEvidence()})
	assert.True(t, ok)
	assert.Equal(t, ev.Due, back.Due, "the report's evidence gives the counts again")
	assert.Equal(t, ev.SentPerS, back.SentPerS)
	assert.Equal(t, 1, s.Requests.Dropped)
}

// A request the client could not send for want of its own resources is a
// drop, not a server failure: it is due, never sent, and out of the error
// rate.
func TestClientLimitIsADrop(t *testing.T) {
	t0 := time.Now()
	rec := NewRecorder(t0, time.Second, PerRequestLimits{}, LengthCheck{})
	o := &client.Outcome{Intended: t0.Add(100 * time.Millisecond), Class: client.ClassClientLimit}
	rec.Started(o.Intended)
	rec.Record(o, o.Intended)
	s, ev := rec.Summary()
	assert.Equal(t, 1, s.Requests.Dropped)
	assert.Zero(t, s.Requests.Sent)
	assert.Zero(t, s.Requests.Failed)
	assert.Equal(t, 1, s.Errors[string(client.ClassClientLimit)])
	assert.Equal(t, 1, ev.Due)
	assert.Zero(t, ev.SentInWindow)
}

// A window cut short (a step stopped once decided) is judged as a step of
// that length would be: its halves and trend blocks cut over the shorter
// window, its rate over it.
func TestCutWindowIsAShorterStep(t *testing.T) {
	t0 := time.Now()
	long := NewRecorder(t0, 20*time.Second, PerRequestLimits{}, LengthCheck{})
	short := NewRecorder(t0, 8*time.Second, PerRequestLimits{}, LengthCheck{})
	for i := range 40 { // one request every 200 ms over the first 8 s, TTFT rising
		o := &client.Outcome{Intended: t0.Add(time.Duration(i) * 200 * time.Millisecond), PromptTokens: 100 + i}
		o.Sent = o.Intended
		o.First, o.Last = o.Sent.Add(time.Duration(10+i)*time.Millisecond), o.Sent.Add(time.Duration(60+i)*time.Millisecond)
		o.CompletionTokens = 2
		for _, r := range []*Recorder{long, short} {
			r.Started(o.Intended)
			r.Record(o, o.Last)
		}
	}
	long.Cut(t0.Add(8 * time.Second))
	assert.Equal(t, 8*time.Second, long.Window())
	got, gotEv := long.Summary()
	want, wantEv := short.Summary()
	assert.Equal(t, want.RateAchieved, got.RateAchieved)
	assert.Equal(t, wantEv.TTFTBlocks, gotEv.TTFTBlocks)
	assert.Equal(t, wantEv.TTFTFirstHalfP50, gotEv.TTFTFirstHalfP50)
	assert.Equal(t, wantEv.SecondHalfN, gotEv.SecondHalfN)
	long.Cut(t0.Add(12 * time.Second))
	assert.Equal(t, 8*time.Second, long.Window(), "a cut never lengthens the window")
}

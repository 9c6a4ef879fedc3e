package dispatch

import (
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/workload"
)

// Tee is a sink that passes what a dispatcher records to both a and b:
// every start, drop and outcome; each first token to whichever wants it
// (FirstTokenSink); and a dropped request to whichever wants to know
// which (RequestDropSink), the other told only when. A step run until
// decided records into its own sink and the cohort its looks judge.
func Tee(a, b OutcomeSink) OutcomeSink { return tee{a, b} }

type tee [2]OutcomeSink

func (t tee) Started(intended time.Time) {
	t[0].Started(intended)
	t[1].Started(intended)
}

func (t tee) Dropped(intended time.Time) {
	t[0].Dropped(intended)
	t[1].Dropped(intended)
}

func (t tee) Record(o *client.Outcome, at time.Time) {
	t[0].Record(o, at)
	t[1].Record(o, at)
}

func (t tee) FirstToken(intended, first time.Time) {
	for _, s := range t {
		if f, ok := s.(FirstTokenSink); ok {
			f.FirstToken(intended, first)
		}
	}
}

func (t tee) DroppedRequest(req workload.Request, intended time.Time) {
	recordDrop(t[0], req, intended)
	recordDrop(t[1], req, intended)
}

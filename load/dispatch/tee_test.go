package dispatch

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/workload"
)

// calls is a sink that notes what it was told.
type calls struct{ got []string }

func (c *calls) Started(time.Time)                 { c.got = append(c.got, "started") }
func (c *calls) Dropped(time.Time)                 { c.got = append(c.got, "dropped") }
func (c *calls) Record(*client.Outcome, time.Time) { c.got = append(c.got, "record") }

// eager wants first tokens and which request was dropped.
type eager struct{ calls }

func (e *eager) FirstToken(time.Time, time.Time) { e.got = append(e.got, "first") }
func (e *eager) DroppedRequest(req workload.Request, _ time.Time) {
	e.got = append(e.got, "dropped request")
}

// A tee tells both sinks everything, and each of the extras only to the
// sink that wants it: the other hears of a drop as Dropped.
func TestTeeTellsBothWhatEachWants(t *testing.T) {
	plain, wants := &calls{}, &eager{}
	for _, s := range []OutcomeSink{Tee(plain, wants), Tee(wants, plain)} {
		plain.got, wants.got = nil, nil
		now := time.Now()
		s.Started(now)
		s.(FirstTokenSink).FirstToken(now, now)
		s.Record(&client.Outcome{}, now)
		recordDrop(s, workload.Request{}, now)
		s.Dropped(now)
		assert.Equal(t, []string{"started", "record", "dropped", "dropped"}, plain.got)
		assert.Equal(t, []string{"started", "first", "record", "dropped request", "dropped"}, wants.got)
	}
}

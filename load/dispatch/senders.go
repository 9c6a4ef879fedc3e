package dispatch

import (
	"sync"
	"time"

	"github.com/llmslo/llmslo/load/workload"
)

// send is one request handed to a sender at its time.
type send struct {
	req      workload.Request
	intended time.Time
}

// senders runs each request on a goroutine that has run one before, where
// one is idle, and on a new goroutine otherwise, so that no send ever waits
// for a free one and the schedule stays open-loop.
//
// Why not a goroutine a request: each new goroutine grew its stack through
// the HTTP client's frames again (a copy at every doubling), which cost
// about 4% of the process's CPU at 2,000 req/s of short streams. A reused
// goroutine keeps its grown stack until the garbage collector shrinks an
// idle one, which happens a few times a second, not at every request.
type senders struct {
	run     func(send)
	handoff chan send // unbuffered: a send succeeds only into an idle sender
	wg      sync.WaitGroup
	started int // goroutines started; written by start alone, read after wait
}

func newSenders(run func(send)) *senders {
	return &senders{run: run, handoff: make(chan send)}
}

// start runs s now: on an idle sender if one waits, else on a new one.
// It never blocks. It must not be called after closing.
func (p *senders) start(s send) {
	select {
	case p.handoff <- s:
	default:
		p.started++
		p.wg.Add(1)
		go p.loop(s)
	}
}

func (p *senders) loop(s send) {
	defer p.wg.Done()
	for ok := true; ok; s, ok = <-p.handoff {
		p.run(s)
	}
}

// closing tells the idle senders, and each busy one once its request ends,
// that no more requests will come.
func (p *senders) closing() { close(p.handoff) }

// wait returns once every sender has ended.
func (p *senders) wait() { p.wg.Wait() }

// goroutines is how many goroutines have been started.
func (p *senders) goroutines() int { return p.started }

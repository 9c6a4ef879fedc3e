package vllmsim

import (
	"github.com/llmslo/llmslo/internal/testkit"
	"testing"
	"time"
)

// The lesson of vLLM's tuning guide, in virtual time: a closed loop (N
// clients, each sending its next request when the last one ends) can never
// overload the server, so its latency settles however large N is; an open
// loop above capacity builds a queue without bound, so the longer the run,
// the longer the wait.

const loadIn, loadOut = 512, 128

func closedLoop(t *testing.T, clients int, d time.Duration) (*vrun, float64) {
	v := newVRun(defaultEngine(t, nil))
	n := 0
	next := func(at time.Duration) {
		v.add(&vreq{arrive: at, prompt: wordsPrompt(n, loadIn), out: loadOut})
		n++
	}
	for range clients {
		next(0)
	}
	v.onFinish = func(_ *vreq, at time.Duration) { next(at) }
	v.run(d)
	return v, float64(len(v.finished)) / d.Seconds()
}

func openLoop(t *testing.T, rate float64, d time.Duration) *vrun {
	v := newVRun(defaultEngine(t, nil))
	for i := 0; float64(i)/rate < d.Seconds(); i++ {
		v.add(&vreq{arrive: time.Duration(float64(i) / rate * float64(time.Second)), prompt: wordsPrompt(i, loadIn), out: loadOut})
	}
	v.run(d)
	waiting := v.eng.Stats().Waiting
	v.run(time.Hour) // drain, so requests near the end report their wait
	v.waitingAt = append(v.waitingAt[:0], waiting)
	return v
}

// ttftIn is the median TTFT of requests that arrived in [from, to).
func ttftIn(v *vrun, from, to time.Duration) time.Duration {
	var d []time.Duration
	for _, r := range v.finished {
		if r.arrive >= from && r.arrive < to {
			d = append(d, r.ttft())
		}
	}
	if len(d) == 0 {
		return -1
	}
	return testkit.Median(d)
}

func TestClosedLoopIsSteadyAtAnyConcurrency(t *testing.T) {
	const d = 120 * time.Second
	var capacity float64
	for _, clients := range []int{8, 32, 256} {
		v, tput := closedLoop(t, clients, d)
		mid, late := ttftIn(v, 40*time.Second, 80*time.Second), ttftIn(v, 80*time.Second, 110*time.Second)
		if mid <= 0 || late <= 0 {
			t.Fatalf("%d clients: no finished requests in a window", clients)
		}
		if r := float64(late) / float64(mid); r > 1.5 || r < 0.67 {
			t.Fatalf("%d clients: median TTFT %v in the middle third, %v at the end: not steady", clients, mid, late)
		}
		if late > 2*time.Second {
			t.Fatalf("%d clients: TTFT %v is not bounded by one batch's worth of work", clients, late)
		}
		t.Logf("closed loop, %3d clients: %.1f req/s, median TTFT %v then %v", clients, tput, mid, late)
		capacity = max(capacity, tput)
	}

	// Open loop at 1.5 × the closed loop's best throughput: the queue, and
	// TTFT with it, grows with the length of the run.
	rate := 1.5 * capacity
	short, long := openLoop(t, rate, 30*time.Second), openLoop(t, rate, 60*time.Second)
	endShort, endLong := ttftIn(short, 25*time.Second, 30*time.Second), ttftIn(long, 55*time.Second, 60*time.Second)
	if endShort <= 0 || endLong <= 0 {
		t.Fatal("open loop: no finished requests near the end of the runs")
	}
	if endLong < 15*endShort/10 {
		t.Fatalf("open loop at %.1f req/s: TTFT near the end %v (30 s run) vs %v (60 s run); the wait should grow with the run", rate, endShort, endLong)
	}
	if qs, ql := short.waitingAt[0], long.waitingAt[0]; ql < 15*qs/10 || qs == 0 {
		t.Fatalf("queue at the end: %d (30 s) vs %d (60 s); it should grow", qs, ql)
	}
	// Below capacity the same open loop is steady.
	calm := openLoop(t, 0.5*capacity, 60*time.Second)
	if a, b := ttftIn(calm, 20*time.Second, 30*time.Second), ttftIn(calm, 45*time.Second, 55*time.Second); float64(b) > 1.5*float64(a) {
		t.Fatalf("open loop at half capacity: TTFT %v then %v; should be steady", a, b)
	}
	t.Logf("open loop at %.1f req/s: TTFT near the end %v after 30 s, %v after 60 s; waiting %d then %d",
		rate, endShort, endLong, short.waitingAt[0], long.waitingAt[0])
}

package vllmsim

import (
	"testing"
	"time"
)

// knee is the highest open-loop rate of loadIn/loadOut-token requests that
// cfg sustains for 40 s: at the end, less than a second's arrivals wait and
// the last requests' median TTFT is under a second. Found by bisection.
func knee(t *testing.T, cfg Config) float64 {
	lo, hi := 0.5, 256.0
	for range 10 {
		r := (lo + hi) / 2
		if q, _, ttft := openLoopOn(t, cfg, r, 40*time.Second); float64(q) < r && ttft < time.Second {
			lo = r
		} else {
			hi = r
		}
	}
	return lo
}

// openLoopOn sends requests at rate a second for d and reports the queue
// and the preemptions at the end, and the median TTFT of the requests that
// arrived in the last fifth of the run (measured after draining).
func openLoopOn(t *testing.T, cfg Config, rate float64, d time.Duration) (waiting int, preemptions int64, lateTTFT time.Duration) {
	e := configEngine(t, cfg)
	v := newVRun(e)
	for i := 0; float64(i)/rate < d.Seconds(); i++ {
		v.add(&vreq{arrive: time.Duration(float64(i) / rate * float64(time.Second)), prompt: wordsPrompt(i, loadIn), out: loadOut})
	}
	v.run(d)
	st := e.Stats()
	v.run(time.Hour)
	return st.Waiting, st.Preemptions, ttftIn(v, d*4/5, d)
}

// Overload looks the same on a 70B model as on the 8B one, at each model's
// own knee: below it the queue stays empty and TTFT steady; above it the
// queue and TTFT grow with the length of the run, and the KV cache, too
// small for max_num_seqs sequences, preempts.
func TestOverloadAtEachModelsKnee(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	var capacity [2]float64
	for i, c := range []struct {
		name string
		cfg  Config
	}{
		{"Llama-3.1-8B on H100", Config{Model: llama31, GPU: "h100"}},
		{"Llama-3.1-70B FP8 on H200", Config{Model: "RedHatAI/Llama-3.1-70B-Instruct-FP8", GPU: "h200"}},
	} {
		capacity[i] = knee(t, c.cfg)
		calmQ, calmP, calmTTFT := openLoopOn(t, c.cfg, 0.7*capacity[i], 60*time.Second)
		q30, p30, ttft30 := openLoopOn(t, c.cfg, 1.3*capacity[i], 30*time.Second)
		q60, p60, ttft60 := openLoopOn(t, c.cfg, 1.3*capacity[i], 60*time.Second)
		t.Logf("%s: knee %.1f req/s (%d/%d tokens); at 0.7×: queue %d, %d preemptions, TTFT %v; "+
			"at 1.3×: queue %d then %d, preemptions %d then %d, late TTFT %v then %v",
			c.name, capacity[i], loadIn, loadOut, calmQ, calmP, calmTTFT, q30, q60, p30, p60, ttft30, ttft60)
		if calmQ != 0 || calmP != 0 || calmTTFT > time.Second {
			t.Errorf("%s below its knee: queue %d, %d preemptions, TTFT %v", c.name, calmQ, calmP, calmTTFT)
		}
		if q60 < q30*15/10 || q30 == 0 || ttft60 < ttft30*15/10 {
			t.Errorf("%s above its knee: queue %d → %d, TTFT %v → %v; both should grow with the run", c.name, q30, q60, ttft30, ttft60)
		}
		if p60 == 0 {
			t.Errorf("%s above its knee: no preemptions", c.name)
		}
	}
	if capacity[1] > capacity[0]/2 {
		t.Errorf("the 70B's knee %.1f req/s should be well below the 8B's %.1f", capacity[1], capacity[0])
	}
}

package vllmsim

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

// The calibration: each published figure of docs/simulator.md, reproduced
// in virtual time with the published setup as far as the simulator has
// its knobs, and computed by the figure's own definition.

// figure is one published number and how the simulator reproduces it.
type figure struct {
	name      string  // what was measured
	setup     string  // GPU, model, workload
	published float64 // in unit
	unit      string
	sim       func(t testing.TB) float64
	// gap, when set, says why the simulator is not held to 20% of the
	// figure: the measurement includes what the simulator does not model.
	gap string
}

// configEngine builds the engine that a server with cfg would run.
func configEngine(t testing.TB, cfg Config) *engine.Engine {
	t.Helper()
	c, err := cfg.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(c.engineConfig())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// configRun is a virtual-time run of the engine and API server that a
// server with cfg would have.
func configRun(t testing.TB, cfg Config) *vrun {
	t.Helper()
	c, err := cfg.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	v := newVRun(configEngine(t, c))
	v.front, v.out = newFrontend(c), newOutput(c)
	return v
}

// benchStats are vLLM's benchmark_serving statistics of a finished run.
type benchStats struct {
	meanTTFT, medianTTFT, meanTPOT, medianTPOT, meanITL float64 // ms
	throughput                                          float64 // finished requests a second
}

// stats computes the statistics over requests arriving in [from, to), as
// benchmark_serving defines them: TPOT is (latency − TTFT)/(tokens − 1)
// over requests of more than one token; ITL the gaps between tokens;
// throughput the requests over the time from the first arrival to the last
// finish. zeroTTFT marks requests the benchmark saw no token of, whose
// TTFT it recorded as 0.
func stats(v *vrun, from, to time.Duration, zeroTTFT map[*vreq]bool) benchStats {
	var ttft, tpot, itl []float64
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	var last time.Duration
	first := time.Duration(math.MaxInt64)
	for _, r := range v.finished {
		if r.arrive < from || r.arrive >= to {
			continue
		}
		first, last = min(first, r.arrive), max(last, r.last)
		if zeroTTFT[r] {
			ttft = append(ttft, 0)
			continue
		}
		ttft = append(ttft, ms(r.ttft()))
		if r.out > 1 {
			tpot = append(tpot, ms(r.tpot()))
		}
		for i := 1; i < len(r.tokenTimes); i++ {
			itl = append(itl, ms(r.tokenTimes[i]-r.tokenTimes[i-1]))
		}
	}
	return benchStats{meanTTFT: mean(ttft), medianTTFT: medianF(ttft), meanTPOT: mean(tpot), medianTPOT: medianF(tpot),
		meanITL: mean(itl), throughput: float64(len(ttft)) / (last - first).Seconds()}
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// medianF is numpy's median: the mean of the middle two of an even count.
func medianF(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// burst runs requests of the given lengths all sent at time 0.
func burst(t testing.TB, cfg Config, in, out []int) (*vrun, map[*vreq]bool) {
	v := configRun(t, cfg)
	zero := map[*vreq]bool{}
	for i := range in {
		r := &vreq{prompt: wordsPrompt(i, max(in[i], 1)), out: max(out[i], 1)}
		if out[i] == 0 {
			zero[r] = true
		}
		v.add(r)
	}
	v.run(time.Hour)
	if len(v.finished) != len(in) {
		t.Fatalf("%d of %d requests finished", len(v.finished), len(in))
	}
	return v, zero
}

// poisson runs requests of in/out tokens arriving at rate a second for d,
// drained, and returns the statistics of those that arrived after warm.
func poisson(t testing.TB, cfg Config, rate float64, in, out int, warm, d time.Duration) benchStats {
	return stats(poissonRun(t, cfg, rate, in, out, d), warm, d, nil)
}

// poissonRun is poisson's run, drained.
func poissonRun(t testing.TB, cfg Config, rate float64, in, out int, d time.Duration) *vrun {
	v := configRun(t, cfg)
	rng := rand.New(rand.NewPCG(1, 2))
	at := time.Duration(0)
	for i := 0; at < d; i++ {
		v.add(&vreq{arrive: at, prompt: wordsPrompt(i, in), out: out})
		at += time.Duration(rng.ExpFloat64() / rate * float64(time.Second))
	}
	v.run(time.Hour)
	return v
}

// lambdaLabs are the three LambdaLabs runs (testdata), by prompt count.
type lambdaRun struct {
	NumPrompts        int     `json:"num_prompts"`
	InputLens         []int   `json:"input_lens"`
	OutputLens        []int   `json:"output_lens"`
	MedianTTFT        float64 `json:"median_ttft_ms"`
	MedianTPOT        float64 `json:"median_tpot_ms"`
	RequestThroughput float64 `json:"request_throughput"`
	DurationSeconds   float64 `json:"duration_s"`
}

func lambdaLabs(t testing.TB) map[int]lambdaRun {
	raw, err := os.ReadFile("testdata/lambdalabs-h100-llama3-8b.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Runs []lambdaRun }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	runs := map[int]lambdaRun{}
	for _, r := range doc.Runs {
		runs[r.NumPrompts] = r
	}
	return runs
}

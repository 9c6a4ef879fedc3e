package vllmsim

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/llmslo/llmslo/internal/testkit"
	loadstats "github.com/llmslo/llmslo/load/stats"
	"github.com/llmslo/llmslo/vllmsim/engine"
)

// The engine near its knee: 128 sequences at a time, 256 prompt and 64
// output tokens, at 0.8 of its saturated throughput. Its queue makes
// neighbouring TTFTs alike: a 60 s step holds about nine times fewer
// independent observations above its p90 than its count (the variance of
// that share across steps, against the binomial's).
const (
	kneeSeqs = 128
	kneeLoad = 0.8
)

// kneeTTFTs runs the engine under Poisson arrivals at rate for secs
// virtual seconds and returns each request's arrival and first token, in
// arrival order.
func kneeTTFTs(t *testing.T, rate, secs float64, seed uint64) (arrive, first []time.Duration) {
	v := newVRun(defaultEngine(t, func(c *engine.Config) { c.MaxNumSeqs = kneeSeqs }))
	rng := rand.New(rand.NewPCG(seed, 99))
	var reqs []*vreq
	for at := 0.0; at < secs; at += rng.ExpFloat64() / rate {
		r := &vreq{arrive: time.Duration(at * float64(time.Second)), prompt: wordsPrompt(len(reqs), 256), out: 64}
		reqs = append(reqs, r)
		v.add(r)
	}
	v.run(time.Duration((secs + 600) * float64(time.Second)))
	for _, r := range reqs {
		arrive, first = append(arrive, r.arrive), append(first, r.first)
	}
	return arrive, first
}

// kneeCapacity is the engine's completions a second when saturated.
func kneeCapacity(t *testing.T) float64 {
	v := newVRun(defaultEngine(t, func(c *engine.Config) { c.MaxNumSeqs = kneeSeqs }))
	const n = 2000
	for i := range n {
		v.add(&vreq{prompt: wordsPrompt(i, 256), out: 64})
	}
	v.run(time.Hour)
	return n / v.now.Seconds()
}

// steadyTTFTs appends the TTFTs of the requests arriving after the first
// minute (the queue's start from empty).
func steadyTTFTs(to []time.Duration, arrive, first []time.Duration) []time.Duration {
	for i := range arrive {
		if arrive[i] > time.Minute {
			to = append(to, first[i]-arrive[i])
		}
	}
	return to
}

// The anytime intervals keep their level on a queue's correlated TTFTs:
// the simulator's engine near its knee, looked at once a second over 60 s
// steps after a 10 s warm-up from the floor on, each look judging the
// requests in send order that have their first token, with the design
// effect the step's own one-second clusters show. The steps are
// consecutive windows of one run in steady state. The true p90 is read
// from that run and another as long, pooled (400,000 requests). With it at
// 0.97 and at 1.03 of the limit, the share of steps that ever reach the
// wrong conclusive verdict stays within 5% plus three standard errors of
// the trials' own sampling.
func TestAnytimeLevelHoldsNearTheKnee(t *testing.T) {
	testkit.Long(t) // two simulated runs of 4 hours, in virtual time
	rate := kneeLoad * kneeCapacity(t)
	const trials = 220
	const window = 70 * time.Second
	arr, first := kneeTTFTs(t, rate, 60+trials*window.Seconds(), 2)
	other, otherFirst := kneeTTFTs(t, rate, 60+trials*window.Seconds(), 1)
	ttfts := steadyTTFTs(steadyTTFTs(nil, arr, first), other, otherFirst)
	sort.Slice(ttfts, func(i, j int) bool { return ttfts[i] < ttfts[j] })
	truth := ttfts[int(math.Ceil(0.9*float64(len(ttfts))))-1]
	t.Logf("rate %.2f req/s, true TTFT p90 %v over %d requests", rate, truth, len(ttfts))

	margin := 3 * math.Sqrt(0.05*0.95/trials)
	for _, ratio := range []float64{0.97, 1.03} {
		limit := time.Duration(float64(truth) / ratio)
		wrongA, wrongF := 0, 0
		lo := 0
		for tr := range trials {
			start := time.Minute + time.Duration(tr)*window
			for lo < len(arr) && arr[lo] < start {
				lo++
			}
			hi := lo
			for hi < len(arr) && arr[hi] < start+window {
				hi++
			}
			wa, wf := make([]time.Duration, hi-lo), make([]time.Duration, hi-lo)
			for i := lo; i < hi; i++ {
				wa[i-lo], wf[i-lo] = arr[i]-start, first[i]-start
			}
			a, f := stepLooks(wa, wf, 10*time.Second, 60, limit, ratio < 1)
			if a {
				wrongA++
			}
			if f {
				wrongF++
			}
		}
		anytime, peeked := float64(wrongA)/trials, float64(wrongF)/trials
		t.Logf("true p90 at %.2f× the limit: wrong conclusive verdicts %.1f%% anytime, %.1f%% peeking the fixed interval", ratio, 100*anytime, 100*peeked)
		assert.LessOrEqual(t, anytime, 0.05+margin, "ratio %.2f", ratio)
		assert.Greater(t, peeked, anytime, "ratio %.2f: peeking at the fixed interval should do worse", ratio)
	}
}

// floorLooks is the first look that may stop a step: load's default
// floor, 10 s.
const floorLooks = 10

// stepLooks looks at one step once a second: the requests arriving after
// warmup whose first token has come, in arrival order up to the first
// without one. It says whether the anytime interval, and the fixed one
// peeked at, ever lay wholly on the wrong side of limit (above it when
// passing is the truth, below it otherwise).
func stepLooks(arrive, first []time.Duration, warmup time.Duration, looks int, limit time.Duration, truthPasses bool) (anytime, peeked bool) {
	h, cl := loadstats.NewHistogram(), loadstats.NewClusters()
	next := 0
	for next < len(arrive) && arrive[next] < warmup {
		next++
	}
	for look := 1; look <= looks; look++ {
		now := warmup + time.Duration(look)*time.Second
		for next < len(arrive) && arrive[next] < now && first[next] > 0 && first[next] <= now {
			ttft := first[next] - arrive[next]
			h.Record(ttft)
			cl.Record(int((arrive[next]-warmup)/time.Second), ttft)
			next++
		}
		if h.Count() == 0 || look < floorLooks {
			continue // no look before the floor may stop a step (load.DefaultMinDuration)
		}
		deff := cl.DesignEffect(h.Quantile(90))
		lo, hi, hasLo, hasHi := h.QuantileCS(90, 0.95, deff, 50)
		flo, fhi, ok := h.QuantileCIClustered(90, 0.95, deff)
		if truthPasses {
			anytime = anytime || (hasLo && lo > limit)
			peeked = peeked || (ok && flo > limit)
		} else {
			anytime = anytime || (hasHi && hi <= limit)
			peeked = peeked || (ok && fhi <= limit)
		}
	}
	return anytime, peeked
}

package arrival

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// The schedules below are pure: each returns the intended send offsets from
// the step start, ascending, every one in [0, d), computed before the step
// begins so that no response can move a send time. Offsets are rounded to
// the nanosecond. They return nil for a rate or duration that is not
// positive and finite; Spec.Schedule validates its input and returns
// errors instead.

// ConstantSchedule sends at i/rate for i = 0, 1, 2, …: the first slot is at
// the step start, and there are ceil(rate·d) slots (d in seconds; a slot
// that lands exactly on d belongs to the next step).
func ConstantSchedule(rate float64, d time.Duration) []time.Duration {
	if !validRate(rate) || d <= 0 {
		return nil
	}
	out := make([]time.Duration, 0, expectedCount(rate, d))
	for i := 0; ; i++ {
		t := secondsToDuration(float64(i) / rate)
		if t >= d {
			return out
		}
		out = append(out, t)
	}
}

// PoissonSchedule is a Poisson process of the given rate conditioned on its
// count: exactly n = round(rate·d) arrivals, placed as n sorted uniforms on
// [0, d). Conditioned on n arrivals in a window, a Poisson process's times
// are exactly such order statistics, so the gaps are still exponential; what
// the conditioning removes is the draw of the count itself, which at 6 req/s
// for 60 s swings by ±19 requests (one sigma) and would make a gate test
// another load than the one it names. The uniforms are drawn as normalised
// exponential spacings: n+1 gaps e_0…e_n, and arrival k at d·(e_0+…+e_k)/Σe.
func PoissonSchedule(rate float64, d time.Duration, rng *rand.Rand) []time.Duration {
	if !validRate(rate) || d <= 0 || rng == nil {
		return nil
	}
	return exactCount(exactN(rate, d), d, rng.ExpFloat64)
}

// GammaSchedule has gamma-distributed gaps with shape burstiness (vLLM's
// --burstiness: 1 is Poisson, lower is burstier; the squared coefficient of
// variation of the gaps is 1/burstiness), and exactly n = round(rate·d)
// arrivals in [0, d): n+1 gaps are drawn and rescaled together so that
// they span the step, which keeps the gaps' shape (their relative sizes)
// and fixes the count, as the Poisson schedule does.
func GammaSchedule(rate, burstiness float64, d time.Duration, rng *rand.Rand) []time.Duration {
	if !validRate(rate) || !validRate(burstiness) || d <= 0 || rng == nil {
		return nil
	}
	return exactCount(exactN(rate, d), d, func() float64 { return gammaSample(rng, burstiness) })
}

// exactN is the count a random schedule holds: rate·d rounded.
func exactN(rate float64, d time.Duration) int {
	return int(min(math.Round(rate*d.Seconds()), 1<<30))
}

// exactCount places n arrivals in [0, d) at the normalised partial sums of
// n+1 gaps: the last gap is the one after the last arrival, so no arrival
// sits on d and the first one is one gap after the start.
func exactCount(n int, d time.Duration, gap func() float64) []time.Duration {
	if n <= 0 {
		return []time.Duration{}
	}
	sums := make([]float64, n+1)
	t := 0.0
	for i := range sums {
		t += gap()
		sums[i] = t
	}
	total := sums[n]
	if !(total > 0) || math.IsInf(total, 0) { // absurd parameters
		return []time.Duration{}
	}
	out := make([]time.Duration, n)
	for k := range n {
		out[k] = min(secondsToDuration(d.Seconds()*sums[k]/total), d-1)
	}
	return out
}

// gammaSample draws from Gamma(shape, 1) by Marsaglia and Tsang's method
// ("A simple method for generating gamma variables", 2000). Shapes below 1
// draw Gamma(shape+1) and multiply by U^(1/shape).
func gammaSample(rng *rand.Rand, shape float64) float64 {
	if shape < 1 {
		u := 1 - rng.Float64() // (0, 1]
		return gammaSample(rng, shape+1) * math.Pow(u, 1/shape)
	}
	dd := shape - 1.0/3
	c := 1 / math.Sqrt(9*dd)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := 1 - rng.Float64() // (0, 1]: log(u) is finite
		x2 := x * x
		if u < 1-0.0331*x2*x2 || math.Log(u) < 0.5*x2+dd*(1-v+math.Log(v)) {
			return dd * v
		}
	}
}

// TraceSchedule replays trace offsets at speed times their own pace:
// offset i is (offsets[i] − first)/speed, where first is the earliest
// offset, cut at d. The input need not be sorted and is not modified.
func TraceSchedule(offsets []time.Duration, speed float64, d time.Duration) []time.Duration {
	if len(offsets) == 0 || !validRate(speed) || d <= 0 {
		return nil
	}
	rel := relativeOffsets(offsets)
	out := make([]time.Duration, 0, len(rel))
	for _, o := range rel {
		t := secondsToDuration(o.Seconds() / speed)
		if t >= d {
			break
		}
		out = append(out, t)
	}
	return out
}

// TraceAtRate replays the trace's pattern of gaps, rescaled so that the
// step itself has its mean rate: the first n = round(rate·d) arrivals of the
// trace are stretched or squeezed so that the arrival after them falls at d,
// and exactly n arrivals land in [0, d). A short trace repeats end to end,
// one mean gap (span/(len−1)) after its last arrival. Scaling the step's own
// stretch rather than the whole log matters: a one-hour trace whose first
// minute is quiet would otherwise give a first step far below its rate. A
// trace of one arrival, or of arrivals all at one instant, gives a constant
// schedule.
func TraceAtRate(offsets []time.Duration, rate float64, d time.Duration) []time.Duration {
	if len(offsets) == 0 || !validRate(rate) || d <= 0 {
		return nil
	}
	rel := relativeOffsets(offsets)
	n := max(int(math.Round(rate*d.Seconds())), 1)
	span := rel[len(rel)-1]
	if span <= 0 {
		return ConstantSchedule(rate, d)
	}
	period := span + span/time.Duration(len(rel)-1) // the span plus one mean gap
	at := func(k int) float64 {
		return (time.Duration(k/len(rel))*period + rel[k%len(rel)]).Seconds()
	}
	factor := d.Seconds() / at(n)
	out := make([]time.Duration, 0, n)
	for k := range n {
		t := secondsToDuration(at(k) * factor)
		if t >= d { // rounding at the edge
			break
		}
		out = append(out, t)
	}
	return out
}

// RampSchedule raises the rate linearly from from to to over d and sends
// arrival k (k = 0, 1, …) when the integrated rate from·t + (to−from)·t²/(2d)
// reaches k. It is deterministic; with from = to it is ConstantSchedule.
func RampSchedule(from, to float64, d time.Duration) []time.Duration {
	if !(from >= 0) || !(to >= 0) || math.IsInf(from, 0) || math.IsInf(to, 0) || from+to <= 0 || d <= 0 {
		return nil
	}
	a := (to - from) / (2 * d.Seconds())
	b := from
	out := make([]time.Duration, 0, expectedCount((from+to)/2, d)+1)
	for k := 0; ; k++ {
		kf := float64(k)
		var t float64
		switch {
		case k == 0:
			t = 0
		case a == 0:
			t = kf / b
		default:
			disc := b*b + 4*a*kf
			if disc < 0 { // a falling ramp never reaches k
				return out
			}
			// The root of a·t² + b·t − k = 0 in a form that is stable when
			// a is small.
			t = 2 * kf / (b + math.Sqrt(disc))
		}
		off := secondsToDuration(t)
		if off >= d {
			return out
		}
		out = append(out, off)
	}
}

// relativeOffsets returns the offsets sorted, relative to the earliest.
func relativeOffsets(offsets []time.Duration) []time.Duration {
	rel := slices.Clone(offsets)
	slices.Sort(rel)
	first := rel[0]
	for i := range rel {
		rel[i] -= first
	}
	return rel
}

func validRate(r float64) bool { return r > 0 && !math.IsInf(r, 0) }

// expectedCount is a capacity hint: rate·d, bounded so that a bad input
// cannot make a huge allocation up front.
func expectedCount(rate float64, d time.Duration) int {
	return int(min(math.Ceil(rate*d.Seconds()), 1<<20))
}

func secondsToDuration(s float64) time.Duration {
	return time.Duration(math.Round(s * 1e9))
}

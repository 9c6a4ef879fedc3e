package arrival

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Kind names an arrival process.
type Kind string

// The arrival processes a step can follow.
const (
	Constant Kind = "constant" // one request every 1/rate, the first at the step start
	Poisson  Kind = "poisson"  // exponential gaps with mean 1/rate
	Gamma    Kind = "gamma"    // gamma gaps with mean 1/rate and shape Burstiness
	Trace    Kind = "trace"    // the fixture's own timestamps
	Ramp     Kind = "ramp"     // a rate rising linearly from From to the step's rate
)

// minBurstiness is the smallest gamma shape a schedule accepts: below it
// a step degenerates into a handful of bursts separated by silences longer
// than most steps, and the gaps underflow to zero.
const minBurstiness = 0.001

// maxScheduled bounds the size of one schedule: beyond it the rate or the
// duration is almost certainly a mistake, and the offsets alone would need
// hundreds of megabytes.
const maxScheduled = 50_000_000

// Spec says when a step's requests are sent.
type Spec struct {
	Kind Kind
	// Burstiness is the gamma shape: 1 is Poisson, lower is burstier
	// (vLLM's --burstiness).
	Burstiness float64
	// Speed replays a trace at Speed × its own pace; 0 rescales it so
	// that its mean rate is the step's rate.
	Speed float64
	// From is a ramp's starting rate (req/s); the rate rises linearly to
	// the step's rate over the step.
	From float64
}

// Parse reads the --arrival flag: "constant", "poisson", "gamma:B"
// (B ≥ 0.001), "trace", "trace:SPEED" (SPEED > 0), "ramp:FROM" (FROM ≥ 0; a bare
// "ramp" starts from 0). Kinds are case-insensitive; spaces around the
// parts are ignored.
func Parse(s string) (Spec, error) {
	kindText, arg, hasArg := strings.Cut(strings.TrimSpace(s), ":")
	kind := Kind(strings.ToLower(strings.TrimSpace(kindText)))
	arg = strings.TrimSpace(arg)
	bad := func(format string, args ...any) (Spec, error) {
		return Spec{}, fmt.Errorf("arrival %q: %s", s, fmt.Sprintf(format, args...))
	}
	number := func(what string) (float64, error) {
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("arrival %q: %s %q is not a number", s, what, arg)
		}
		return v, nil
	}
	switch kind {
	case Constant, Poisson:
		if hasArg {
			return bad("%s takes no parameter, found %q", kind, arg)
		}
		return Spec{Kind: kind}, nil
	case Gamma:
		if !hasArg || arg == "" {
			return bad("gamma needs a burstiness, as gamma:B (1 = Poisson, lower = burstier)")
		}
		b, err := number("burstiness")
		if err != nil {
			return Spec{}, err
		}
		if b <= 0 {
			return bad("burstiness %q must be greater than 0", arg)
		}
		if b < minBurstiness {
			return bad("burstiness %q is below the smallest supported, %v", arg, minBurstiness)
		}
		return Spec{Kind: kind, Burstiness: b}, nil
	case Trace:
		if !hasArg {
			return Spec{Kind: kind}, nil
		}
		v, err := number("speed")
		if err != nil {
			return Spec{}, err
		}
		if v <= 0 {
			return bad("speed %q must be greater than 0 (plain \"trace\" rescales to each step's rate)", arg)
		}
		return Spec{Kind: kind, Speed: v}, nil
	case Ramp:
		if !hasArg {
			return Spec{Kind: kind}, nil
		}
		v, err := number("starting rate")
		if err != nil {
			return Spec{}, err
		}
		if v < 0 {
			return bad("starting rate %q must be 0 or more", arg)
		}
		return Spec{Kind: kind, From: v}, nil
	}
	return bad("unknown kind %q; expected constant, poisson, gamma:B, trace, trace:SPEED or ramp:FROM", kindText)
}

// String is the flag form; Parse reads it back to the same Spec.
func (a Spec) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch a.Kind {
	case Gamma:
		return "gamma:" + f(a.Burstiness)
	case Trace:
		if a.Speed > 0 {
			return "trace:" + f(a.Speed)
		}
		return "trace"
	case Ramp:
		return "ramp:" + f(a.From)
	}
	return string(a.Kind)
}

// Schedule returns the intended send offsets from the step start for a step
// of length d at the given rate (req/s), ascending, every one in [0, d).
// Random kinds draw from a PCG generator seeded with seed, so a seed always
// gives the same schedule. trace holds the fixture's arrival offsets and is
// needed for kind trace; rate is ignored for a trace with Speed > 0.
func (a Spec) Schedule(rate float64, d time.Duration, seed int64, trace []time.Duration) ([]time.Duration, error) {
	if d <= 0 {
		return nil, fmt.Errorf("arrival %s: duration %v must be positive", a, d)
	}
	replay := a.Kind == Trace && a.Speed > 0
	if !replay && !validRate(rate) {
		return nil, fmt.Errorf("arrival %s: rate %v must be a positive, finite number of requests per second", a, rate)
	}
	if !replay && rate*d.Seconds() > maxScheduled {
		return nil, fmt.Errorf("arrival %s: rate %v for %v schedules %.0f requests, more than the limit of %d", a, rate, d, rate*d.Seconds(), maxScheduled)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6c6c6d736c6f)) // second word: a fixed stream id
	switch a.Kind {
	case Constant:
		return ConstantSchedule(rate, d), nil
	case Poisson:
		return PoissonSchedule(rate, d, rng), nil
	case Gamma:
		if !validRate(a.Burstiness) || a.Burstiness < minBurstiness {
			return nil, fmt.Errorf("arrival %s: burstiness %v must be a finite number of at least %v", a, a.Burstiness, minBurstiness)
		}
		return GammaSchedule(rate, a.Burstiness, d, rng), nil
	case Trace:
		if len(trace) == 0 {
			return nil, errors.New("arrival trace: the fixture has no arrival timestamps")
		}
		if replay {
			if math.IsInf(a.Speed, 0) {
				return nil, fmt.Errorf("arrival %s: speed must be finite", a)
			}
			return TraceSchedule(trace, a.Speed, d), nil
		}
		if a.Speed < 0 {
			return nil, fmt.Errorf("arrival %s: speed %v must be positive (or 0 to rescale to the rate)", a, a.Speed)
		}
		return TraceAtRate(trace, rate, d), nil
	case Ramp:
		if !(a.From >= 0) || math.IsInf(a.From, 0) {
			return nil, fmt.Errorf("arrival %s: starting rate %v must be 0 or more and finite", a, a.From)
		}
		if a.From*d.Seconds() > maxScheduled {
			return nil, fmt.Errorf("arrival %s: starting rate %v for %v schedules more than the limit of %d requests", a, a.From, d, maxScheduled)
		}
		return RampSchedule(a.From, rate, d), nil
	}
	return nil, fmt.Errorf("arrival %q: unknown kind; expected constant, poisson, gamma, trace or ramp", string(a.Kind))
}

// StepSchedule is a step's whole schedule: an unmeasured warm-up of length
// warmup, then the measured window of length d. Poisson and gamma draw the
// two parts apart, each with its exact count, so that the measured window
// holds exactly round(rate·d) arrivals whatever the seed; the other kinds
// run as one schedule of warmup+d (constant and ramp are exact already, a
// trace keeps its own rhythm across the boundary).
func (a Spec) StepSchedule(rate float64, warmup, d time.Duration, seed int64, trace []time.Duration) ([]time.Duration, error) {
	if warmup <= 0 || (a.Kind != Poisson && a.Kind != Gamma) {
		return a.Schedule(rate, warmup+d, seed, trace)
	}
	warm, err := a.Schedule(rate, warmup, seed^0x7761726d, trace) // "warm": its own stream
	if err != nil {
		return nil, err
	}
	measured, err := a.Schedule(rate, d, seed, trace)
	if err != nil {
		return nil, err
	}
	out := make([]time.Duration, 0, len(warm)+len(measured))
	out = append(out, warm...)
	for _, o := range measured {
		out = append(out, warmup+o)
	}
	return out, nil
}

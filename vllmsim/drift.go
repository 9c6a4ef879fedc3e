package vllmsim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Drift makes the engine's speed follow the wall clock, as a GPU's does
// when its clocks ramp or it runs warm beside its neighbours: every step
// takes its modelled time times Factor(now). It is a model of drift, not
// a measurement of it: its shapes are a slow sine and a step, the figures
// of issue reports (5 to 20% between runs), not of a GPU observed here.
//
// Drift only slows a step (Factor is 1 at best): the profiles are
// calibrated at a GPU's best, and no step may beat the kernel floor.
// Factor reads the wall clock alone, so every simulator on a machine (in
// this process or another) drifts together, as servers sharing a node do.
type Drift struct {
	// Kind is DriftSine or DriftStep; empty: no drift.
	Kind string
	// Amplitude is the slowdown at the worst: 0.1 makes steps up to 10%
	// longer.
	Amplitude float64
	// Period is the sine's: the slowdown is 0 at each multiple of Period
	// since the Unix epoch and Amplitude half a period later.
	Period time.Duration
	// At is the step's moment: steps are Amplitude longer from then on.
	At time.Time
}

// Drift shapes.
const (
	DriftSine = "sine"
	DriftStep = "step"
)

// Factor is what a step that starts at now takes, as a multiple of its
// modelled time.
func (d Drift) Factor(now time.Time) float64 {
	switch d.Kind {
	case DriftSine:
		if d.Period <= 0 {
			return 1
		}
		phase := float64(now.UnixNano()%int64(d.Period)) / float64(d.Period)
		return 1 + d.Amplitude*(1-math.Cos(2*math.Pi*phase))/2
	case DriftStep:
		if now.Before(d.At) {
			return 1
		}
		return 1 + d.Amplitude
	}
	return 1
}

// String is the drift as --drift takes it.
func (d Drift) String() string {
	amp := strconv.FormatFloat(100*d.Amplitude, 'f', -1, 64) + "%"
	switch d.Kind {
	case DriftSine:
		return DriftSine + ":" + amp + ":" + d.Period.String()
	case DriftStep:
		return DriftStep + ":" + amp + "@" + d.At.UTC().Format(time.RFC3339Nano)
	}
	return ""
}

// ParseDrift reads --drift: "sine:AMPLITUDE:PERIOD" (sine:10%:2m) or
// "step:AMPLITUDE@TIME" (step:10%@2026-12-05T15:00:00Z), the amplitude a
// percentage or a fraction.
func ParseDrift(s string) (Drift, error) {
	kind, rest, ok := strings.Cut(s, ":")
	bad := func(why string) (Drift, error) {
		return Drift{}, fmt.Errorf("%q %s: want sine:10%%:2m or step:10%%@2026-12-05T15:00:00Z", s, why)
	}
	if !ok {
		return bad("has no shape")
	}
	var amp, arg string
	switch kind {
	case DriftSine:
		amp, arg, ok = strings.Cut(rest, ":")
	case DriftStep:
		amp, arg, ok = strings.Cut(rest, "@")
	default:
		return bad("is neither sine nor step")
	}
	if !ok {
		return bad("lacks its period or moment")
	}
	a, err := parseShare(amp)
	if err != nil {
		return bad("has no amplitude")
	}
	d := Drift{Kind: kind, Amplitude: a}
	if kind == DriftSine {
		if d.Period, err = time.ParseDuration(arg); err != nil {
			return bad("has no period")
		}
	} else if d.At, err = time.Parse(time.RFC3339Nano, arg); err != nil {
		return bad("has no RFC 3339 moment")
	}
	if why := d.problem(); why != "" {
		return bad(why)
	}
	return d, nil
}

// problem says what makes d a drift the simulator cannot model, or "":
// one that would speed a step up would let it beat the kernel floor.
func (d Drift) problem() string {
	switch {
	case d.Kind == "":
		return ""
	case d.Kind != DriftSine && d.Kind != DriftStep:
		return "is neither sine nor step"
	case !(d.Amplitude > 0 && d.Amplitude <= 10):
		return "has no amplitude in (0, 1000%]"
	case d.Kind == DriftSine && d.Period <= 0:
		return "has no positive period"
	}
	return ""
}

// checkNoise refuses a drift or a step jitter given in a Config (not
// through --drift or --step-jitter) that the flags would refuse.
func (c Config) checkNoise() error {
	if why := c.Drift.problem(); why != "" {
		return fmt.Errorf("vllmsim: drift %+v %s", c.Drift, why)
	}
	if !(c.StepJitter >= 0 && c.StepJitter <= 1) {
		return fmt.Errorf("vllmsim: --step-jitter must be a share within [0, 100%%], got %g", c.StepJitter)
	}
	return nil
}

// driftFactor is the drive loop's hook: nil without drift.
func (c Config) driftFactor() func(time.Time) float64 {
	if c.Drift.Kind == "" {
		return nil
	}
	return c.Drift.Factor
}

// parseShare reads "10%" or "0.1".
func parseShare(v string) (float64, error) {
	if p, ok := strings.CutSuffix(v, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		return f / 100, err
	}
	return strconv.ParseFloat(v, 64)
}

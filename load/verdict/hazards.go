package verdict

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
)

// Hazard kinds.
const (
	HazardClientSaturation = "client_saturation"
	HazardWarmCache        = "warm_cache"
	HazardNotSteady        = "not_steady"
	HazardTooFewSamples    = "too_few_samples"
	HazardLengthMismatch   = "length_mismatch"
)

// Thresholds decide when a hazard fires. A zero field means its default
// (DefaultThresholds), never "off": a hazard is turned off only by naming
// it in Off, and the step's report lists it as not judged.
type Thresholds struct {
	// Off lists hazard kinds that are not judged.
	Off []string
	// client_saturation. A client seen late (send-lag or scheduler
	// latency p99 over its limit) is judged on what its lateness did: a
	// gated SLO that comes out otherwise without the delay, or a load
	// the server saw that differs from the schedule's (the ratios
	// below, each on its 95% interval). Otherwise it is a note.
	MaxSendLagP99      time.Duration // lag noticed from this p99; default 5ms
	MaxSchedLatencyP99 time.Duration // Go scheduler latency noticed from this p99; default 5ms
	// MinAchievedRatio: sent within the window / due in it; default 0.98.
	MinAchievedRatio float64
	// MinWindowRatio: the same over short windows (about 20 arrivals, 1 s
	// at least); default 0.8.
	MinWindowRatio float64
	// MaxLateFraction: a send is late when its lag exceeds this fraction
	// of the longer of the mean gap between arrivals and the median
	// service time (E2EL from send); default 0.25. MaxLateShare: the
	// share of sends that may be late; default 0.05.
	MaxLateFraction float64
	MaxLateShare    float64
	// MinLateness: no lateness shorter than this, or than the server's
	// median inter-token gap, counts as late: a server that steps its
	// batch every gap cannot tell arrivals apart within one; default 1ms.
	MinLateness time.Duration
	AllowDrops  bool // default false: any drop by the in-flight cap fires
	// warm_cache: observed − expected prefix-cache hit rate; default 0.10
	MaxHitRateExcess float64
	// Over capacity (a failure) and not_steady (a hazard only where it
	// could change the verdict). MaxWaitingSlope: a waiting queue growing
	// faster than this over the step's second half, per second, is over
	// capacity; default 0.5. The delay's trend (the server's queue time,
	// or TTFT less each prompt's own effect, by block of the window) is
	// decisive when its Theil–Sen interval lies above zero and its rise
	// over the window is at least MinTrendRise (default 10ms: a fast
	// server's jitter is no trend) and MinTrendRiseShare of the step's
	// TTFT p50 (default 0.5), from MinTrendRequests requests at least
	// (default 40).
	MaxWaitingSlope   float64
	MinTrendRise      time.Duration
	MinTrendRiseShare float64
	MinTrendRequests  int
	// too_few_samples: observations beyond the gated percentile; default 10
	MinTailSamples float64
	// length_mismatch: more than MaxMismatchFraction of requests whose usage
	// is off by more than LengthTolerance; defaults 2% and 1%
	MaxMismatchFraction float64
	LengthTolerance     float64
}

// DefaultThresholds returns the defaults docs/hazards.md documents.
func DefaultThresholds() Thresholds {
	return Thresholds{
		MaxSendLagP99:       5 * time.Millisecond,
		MinAchievedRatio:    0.98,
		MinWindowRatio:      0.8,
		MaxLateFraction:     0.25,
		MaxLateShare:        0.05,
		MaxSchedLatencyP99:  5 * time.Millisecond,
		MaxHitRateExcess:    0.10,
		MinLateness:         time.Millisecond,
		MaxWaitingSlope:     0.5,
		MinTrendRise:        10 * time.Millisecond,
		MinTrendRiseShare:   0.5,
		MinTrendRequests:    40,
		MinTailSamples:      10,
		MaxMismatchFraction: 0.02,
		LengthTolerance:     0.01,
	}
}

// Resolved fills every zero field with its default.
func (th Thresholds) Resolved() Thresholds {
	d := DefaultThresholds()
	setDur := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	setF := func(v *float64, def float64) {
		if *v == 0 {
			*v = def
		}
	}
	setDur(&th.MaxSendLagP99, d.MaxSendLagP99)
	setF(&th.MinAchievedRatio, d.MinAchievedRatio)
	setF(&th.MinWindowRatio, d.MinWindowRatio)
	setF(&th.MaxLateFraction, d.MaxLateFraction)
	setF(&th.MaxLateShare, d.MaxLateShare)
	setDur(&th.MaxSchedLatencyP99, d.MaxSchedLatencyP99)
	setF(&th.MaxHitRateExcess, d.MaxHitRateExcess)
	setF(&th.MaxWaitingSlope, d.MaxWaitingSlope)
	setDur(&th.MinLateness, d.MinLateness)
	setDur(&th.MinTrendRise, d.MinTrendRise)
	setF(&th.MinTrendRiseShare, d.MinTrendRiseShare)
	if th.MinTrendRequests == 0 {
		th.MinTrendRequests = d.MinTrendRequests
	}
	setF(&th.MinTailSamples, d.MinTailSamples)
	setF(&th.MaxMismatchFraction, d.MaxMismatchFraction)
	setF(&th.LengthTolerance, d.LengthTolerance)
	return th
}

// HazardKinds lists every hazard kind.
var HazardKinds = []string{HazardClientSaturation, HazardWarmCache, HazardNotSteady, HazardTooFewSamples, HazardLengthMismatch}

// Validate refuses a negative threshold (it would switch one signal off
// without saying so) and a name in Off that is no hazard kind (a misspelt
// name would turn nothing off).
func (th Thresholds) Validate() error {
	for _, k := range th.Off {
		if !slices.Contains(HazardKinds, k) {
			return fmt.Errorf("thresholds: %q in Off is no hazard kind (known: %s)", k, strings.Join(HazardKinds, ", "))
		}
	}
	for name, v := range map[string]float64{
		"MaxSendLagP99": float64(th.MaxSendLagP99), "MinAchievedRatio": th.MinAchievedRatio,
		"MinWindowRatio": th.MinWindowRatio, "MaxLateFraction": th.MaxLateFraction, "MaxLateShare": th.MaxLateShare,
		"MaxSchedLatencyP99": float64(th.MaxSchedLatencyP99), "MaxHitRateExcess": th.MaxHitRateExcess,
		"MaxWaitingSlope": th.MaxWaitingSlope, "MinTrendRise": float64(th.MinTrendRise),
		"MinTrendRiseShare": th.MinTrendRiseShare, "MinTrendRequests": float64(th.MinTrendRequests),
		"MinLateness": float64(th.MinLateness), "MinTailSamples": th.MinTailSamples,
		"MaxMismatchFraction": th.MaxMismatchFraction, "LengthTolerance": th.LengthTolerance,
	} {
		if v < 0 {
			return fmt.Errorf("thresholds: %s is negative; name the hazard in Off to turn it off", name)
		}
	}
	return nil
}

// IsOff reports whether the hazard kind is turned off.
func (th Thresholds) IsOff(kind string) bool { return slices.Contains(th.Off, kind) }

// stepEvidence is the recorder's evidence, what the plan says the step
// should look like, and how its SLOs came out.
type stepEvidence struct {
	observe.Evidence
	expectedHitRate float64
	meanOutput      float64
	lengthsAdvisory bool
	inProcessServer bool
	slos            []SLO
	strict          bool
	// passing: every SLO held, nothing regressed against the baseline
	// and the server was not over capacity, so only a hazard stands
	// between the step and a pass.
	passing bool
	// baseline is the paired baseline's trend for the same step, if any.
	baseline *trend
}

// finding is what one hazard check saw. A hazard whose evidence was seen
// makes the step invalid only when it could have changed the step's
// verdict (decides); otherwise it is kept as a note, with its figures.
type finding struct {
	report.Hazard
	seen, decides bool
}

// findHazards lists what makes a step's measurement untrustworthy, and
// what was seen that could not have changed its verdict.
func findHazards(s *report.StepReport, ev stepEvidence, th Thresholds) (hazards, notes []report.Hazard) {
	checks := []struct {
		kind  string
		check func(*report.StepReport, stepEvidence, Thresholds) finding
	}{
		{HazardClientSaturation, clientSaturation},
		{HazardTooFewSamples, tooFewSamples},
		{HazardWarmCache, warmCache},
		{HazardNotSteady, notSteady},
		{HazardLengthMismatch, lengthMismatch},
	}
	for _, c := range checks {
		if th.IsOff(c.kind) {
			continue
		}
		switch f := c.check(s, ev, th); {
		case f.decides:
			hazards = append(hazards, f.Hazard)
		case f.seen:
			notes = append(notes, f.Hazard)
		}
	}
	return hazards, notes
}

// hugePrompt is the mean prompt, in tokens, from which writing the bodies
// is itself a cause of lateness (100k tokens are about 600 KB of JSON).
const hugePrompt = 20_000

func meanPrompt(s *report.StepReport) float64 {
	if s.Requests.Completed == 0 {
		return 0
	}
	return float64(s.Tokens.Input) / float64(s.Requests.Completed)
}

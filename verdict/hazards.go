package verdict

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/llmslo/llmslo/observe"
	"github.com/llmslo/llmslo/report"
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
	// client_saturation
	MaxSendLagP99      time.Duration // default 5ms
	MinAchievedRatio   float64       // achieved send rate / the schedule's rate; default 0.98
	MaxSchedLatencyP99 time.Duration // Go scheduler latency p99; default 5ms
	AllowDrops         bool          // default false: any drop by the in-flight cap fires
	// warm_cache: observed − expected prefix-cache hit rate; default 0.10
	MaxHitRateExcess float64
	// not_steady (only judged while every SLO passes)
	MaxWaitingSlope  float64 // waiting-queue slope over the step's second half, per second; default 0.5
	MaxTTFTHalfRatio float64 // second-half TTFT p50 / first-half p50; default 1.5
	// MinTTFTRise: the second half must also be this much slower, so that a
	// fast server's jitter (1.0 to 1.8 ms) is no trend; default 10ms.
	MinTTFTRise    time.Duration
	MinHalfSamples int // each half needs this many requests for the TTFT trend; default 20
	// too_few_samples: observations beyond the gated percentile; default 10
	MinTailSamples float64
	// length_mismatch: more than MaxMismatchFraction of requests whose usage
	// is off by more than LengthTolerance; defaults 2% and 1%
	MaxMismatchFraction float64
	LengthTolerance     float64
}

// DefaultThresholds returns DESIGN.md's defaults.
func DefaultThresholds() Thresholds {
	return Thresholds{
		MaxSendLagP99:       5 * time.Millisecond,
		MinAchievedRatio:    0.98,
		MaxSchedLatencyP99:  5 * time.Millisecond,
		MaxHitRateExcess:    0.10,
		MaxWaitingSlope:     0.5,
		MaxTTFTHalfRatio:    1.5,
		MinTTFTRise:         10 * time.Millisecond,
		MinHalfSamples:      20,
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
	setDur(&th.MaxSchedLatencyP99, d.MaxSchedLatencyP99)
	setF(&th.MaxHitRateExcess, d.MaxHitRateExcess)
	setF(&th.MaxWaitingSlope, d.MaxWaitingSlope)
	setF(&th.MaxTTFTHalfRatio, d.MaxTTFTHalfRatio)
	setDur(&th.MinTTFTRise, d.MinTTFTRise)
	if th.MinHalfSamples == 0 {
		th.MinHalfSamples = d.MinHalfSamples
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
		"MaxSchedLatencyP99": float64(th.MaxSchedLatencyP99), "MaxHitRateExcess": th.MaxHitRateExcess,
		"MaxWaitingSlope": th.MaxWaitingSlope, "MaxTTFTHalfRatio": th.MaxTTFTHalfRatio, "MinTTFTRise": float64(th.MinTTFTRise),
		"MinHalfSamples": float64(th.MinHalfSamples), "MinTailSamples": th.MinTailSamples,
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

// minWaitingRise is how much the waiting queue must have grown over the
// step's second half for a rising slope to count: one request more is noise.
const minWaitingRise = 2

// stepEvidence is the recorder's evidence and what the plan says the step
// should look like.
type stepEvidence struct {
	observe.Evidence
	expectedHitRate float64
	meanOutput      float64
	inProcessServer bool
	slos            []SLO
}

// findHazards lists what makes a step's measurement untrustworthy.
func findHazards(s *report.StepReport, ev stepEvidence, th Thresholds) []report.Hazard {
	checks := []struct {
		kind  string
		check func(*report.StepReport, stepEvidence, Thresholds) (report.Hazard, bool)
	}{
		{HazardClientSaturation, clientSaturation},
		{HazardTooFewSamples, tooFewSamples},
		{HazardWarmCache, warmCache},
		{HazardNotSteady, notSteady},
		{HazardLengthMismatch, lengthMismatch},
	}
	var hz []report.Hazard
	for _, c := range checks {
		if th.IsOff(c.kind) {
			continue
		}
		if h, ok := c.check(s, ev, th); ok {
			hz = append(hz, h)
		}
	}
	return hz
}

func clientSaturation(s *report.StepReport, ev stepEvidence, th Thresholds) (report.Hazard, bool) {
	var why []string
	if th.MaxSendLagP99 > 0 && s.SendLag.Count > 0 && s.SendLag.P99 > ms(th.MaxSendLagP99) {
		why = append(why, fmt.Sprintf("send-lag p99 %.1f ms (limit %.0f ms)", s.SendLag.P99, ms(th.MaxSendLagP99)))
	}
	if th.MinAchievedRatio > 0 && ev.ScheduleRate > 0 && s.RateAchieved > 0 {
		if r := s.RateAchieved / ev.ScheduleRate; r < th.MinAchievedRatio {
			why = append(why, fmt.Sprintf("achieved %.2f %s, %.1f%% of the schedule's %.2f (limit %.0f%%)",
				s.RateAchieved, s.RateUnit(), 100*r, ev.ScheduleRate, 100*th.MinAchievedRatio))
		}
	}
	if th.MaxSchedLatencyP99 > 0 && s.Client.SchedLatencyP99Ms > ms(th.MaxSchedLatencyP99) {
		why = append(why, fmt.Sprintf("Go scheduler latency p99 %.1f ms (limit %.0f ms)", s.Client.SchedLatencyP99Ms, ms(th.MaxSchedLatencyP99)))
	}
	if !th.AllowDrops && s.Requests.Dropped > 0 {
		why = append(why, fmt.Sprintf("%d requests dropped by the in-flight cap", s.Requests.Dropped))
	}
	if len(why) == 0 {
		return report.Hazard{}, false
	}
	return report.Hazard{
		Kind:    HazardClientSaturation,
		Message: "the client could not keep the open-loop schedule: " + strings.Join(why, "; "),
		Fix: saturationFix(s, ev, th) + "; a late client loads the server less than asked and adds its own delay to " +
			"what it measures, so neither its latencies nor its pass can be trusted",
	}, true
}

// saturationFix names the cause the figures point at, most specific first.
func saturationFix(s *report.StepReport, ev stepEvidence, th Thresholds) string {
	c := s.Client
	switch {
	case s.Requests.Dropped > 0 && !th.AllowDrops:
		return fmt.Sprintf("the in-flight cap dropped %d requests: raise --max-in-flight, or lower the rate", s.Requests.Dropped)
	case ev.inProcessServer:
		return "the simulator runs in the same process and shares its CPU with the client: " +
			"run it apart (llmslo sim, or its container) or give the process more cores"
	case c.CPUUtilization > 0.8:
		return fmt.Sprintf("the process used %.0f%% of its %d cores (a busy CPU): give the load generator more free CPU "+
			"or run it on its own machine", 100*c.CPUUtilization, c.GOMAXPROCS)
	case c.SchedLatencyP99Ms > ms(th.MaxSchedLatencyP99):
		return fmt.Sprintf("goroutines waited %.1f ms (p99) to run while the process used %.0f%% CPU (a starved scheduler): "+
			"raise GOMAXPROCS or stop other work in the process", c.SchedLatencyP99Ms, 100*c.CPUUtilization)
	case s.BodyWrite.Count > 0 && s.BodyWrite.P99 > ms(th.MaxSendLagP99) && meanPrompt(s) > hugePrompt:
		return fmt.Sprintf("request bodies took %.1f ms (p99) to write (huge bodies): the lag follows them; "+
			"shard the load over more clients or connections", s.BodyWrite.P99)
	}
	return fmt.Sprintf("the process used %.0f%% of its %d cores yet sent late, so other processes likely took the CPU: "+
		"run the load generator on a quieter machine", 100*c.CPUUtilization, c.GOMAXPROCS)
}

func tooFewSamples(s *report.StepReport, ev stepEvidence, th Thresholds) (report.Hazard, bool) {
	var why []string
	needS := 0.0 // the step length that gives every gated metric its samples
	for _, slo := range ev.slos {
		if slo.Metric == report.MetricErrorRate {
			continue
		}
		h := s.Histograms[slo.Metric]
		if h == nil {
			continue
		}
		if conclusiveFailure(s, slo) {
			continue // the whole interval is over the limit: more samples would not save it
		}
		n := float64(h.Count())
		tail := n * (1 - slo.Percentile/100)
		if tail >= th.MinTailSamples {
			continue
		}
		want := th.MinTailSamples / (1 - slo.Percentile/100)
		why = append(why, fmt.Sprintf("%s rests on %.1f observations beyond the percentile (%d samples; it needs at least %.0f)",
			slo.Name(), tail, int64(n), want))
		needS = max(needS, stepLengthFor(s, slo.Metric, n, want, ev.meanOutput))
	}
	if len(why) == 0 {
		return report.Hazard{}, false
	}
	fix := "run longer or at a higher rate"
	if needS > 0 {
		// 20% over the estimate, rounded up to 5 s: a Poisson step and a
		// few failures should not leave the next run short again.
		secs := math.Ceil(needS*1.2/5) * 5
		fix = fmt.Sprintf("run the step for at least %.0f s", secs)
		if s.RateTarget > 0 {
			fix += fmt.Sprintf(" at %g %s", s.RateTarget, s.RateUnit())
		}
		fix += fmt.Sprintf(" (this one measured %.0f s)", s.DurationS)
	}
	return report.Hazard{Kind: HazardTooFewSamples, Message: strings.Join(why, "; "), Fix: fix}, true
}

// stepLengthFor estimates the measured seconds a step needs for want
// samples of metric. From the samples this step got when it got any (that
// accounts for failures and for how many ITL gaps a request gives), else
// from the rate: one sample a completed request, or the fixture's mean
// output length less one for ITL.
func stepLengthFor(s *report.StepReport, metric report.Metric, have, want, meanOutput float64) float64 {
	if have > 0 && s.DurationS > 0 {
		return s.DurationS * want / have
	}
	rate := s.RateTarget
	if rate <= 0 {
		rate = s.RateAchieved
	}
	if rate <= 0 {
		return 0
	}
	perRequest := 1.0
	if metric == report.MetricITL {
		if meanOutput <= 1 {
			return 0
		}
		perRequest = meanOutput - 1
	}
	return want / perRequest / rate
}

// conclusiveFailure reports whether the step's result for slo failed with
// its whole 95% interval above the limit.
func conclusiveFailure(s *report.StepReport, slo SLO) bool {
	for _, r := range s.SLO {
		if r.Metric == string(slo.Metric) && r.Percentile == slo.Percentile {
			return !r.Pass && r.CI95Ms != nil && r.CI95Ms[0] > r.LimitMs
		}
	}
	return false
}

func warmCache(s *report.StepReport, ev stepEvidence, th Thresholds) (report.Hazard, bool) {
	reset := "the cache was not reset before the step"
	if s.Server.PrefixCacheReset {
		reset = "the cache was reset before the step, so the prompts themselves repeat more than the fixture says"
	}
	fire := func(msg string) (report.Hazard, bool) {
		return report.Hazard{
			Kind:    HazardWarmCache,
			Message: msg + " (" + reset + ")",
			Fix:     "reset the cache (serve vLLM with VLLM_SERVER_DEV_MODE=1 so /reset_prefix_cache works), keep prompt salting on, or vary the seed",
		}, true
	}
	// The better witness first: cached tokens the server reported request
	// by request are fixed at each request's first scheduling, so a
	// preempted request re-reading its own blocks cannot inflate them.
	if rate, ok := s.PromptCache.HitRate(); ok {
		if rate-ev.expectedHitRate <= th.MaxHitRateExcess {
			return report.Hazard{}, false
		}
		return fire(fmt.Sprintf("the server reported %.0f%% of prompt tokens as cached (usage cached_tokens over %d requests) but the fixture expects %.0f%%",
			100*rate, s.PromptCache.Requests, 100*ev.expectedHitRate))
	}
	hr := s.Server.PrefixCacheHitRate
	if hr == nil || *hr-ev.expectedHitRate <= th.MaxHitRateExcess {
		return report.Hazard{}, false
	}
	msg := fmt.Sprintf("the prefix cache served %.0f%% of prompt tokens but the fixture expects %.0f%%", 100**hr, 100*ev.expectedHitRate)
	if adj, explained, ok := withoutResumes(s); ok {
		// A server whose counters include resumed requests' lookups (vLLM
		// before its V1 metrics) counts a preempted request's own blocks
		// as hits when it resumes: discount what the preemptions explain.
		if adj-ev.expectedHitRate <= th.MaxHitRateExcess {
			return report.Hazard{}, false
		}
		msg += fmt.Sprintf("; %.0f%% even after discounting up to %.0f hit tokens that the %.0f preemptions can explain",
			100*adj, explained, s.Server.Preemptions)
	}
	return fire(msg)
}

// withoutResumes is the server's hit rate with the hits that its
// preemptions can explain taken out of both hits and lookups: each resumed
// request may find its whole context again, its prompt and about half its
// output on average. ok is false without preemptions or counters.
func withoutResumes(s *report.StepReport) (rate, explained float64, ok bool) {
	srv := s.Server
	if srv.Preemptions <= 0 || srv.PrefixQueryTokens <= 0 || s.Requests.Completed == 0 {
		return 0, 0, false
	}
	n := float64(s.Requests.Completed)
	perResume := float64(s.Tokens.Input)/n + float64(s.Tokens.Output)/n/2
	explained = min(srv.Preemptions*perResume, srv.PrefixHitTokens)
	queries := srv.PrefixQueryTokens - explained
	if queries <= 0 {
		return 0, explained, true
	}
	return (srv.PrefixHitTokens - explained) / queries, explained, true
}

func notSteady(s *report.StepReport, ev stepEvidence, th Thresholds) (report.Hazard, bool) {
	for _, r := range s.SLO {
		if !r.Pass {
			return report.Hazard{}, false // a failing step fails; steadiness matters only for a pass
		}
	}
	var why []string
	if th.MaxWaitingSlope > 0 && s.Server.MetricsAvailable && s.Server.WaitingSlopePerS > th.MaxWaitingSlope &&
		s.Server.WaitingRise >= minWaitingRise {
		why = append(why, fmt.Sprintf("the server's waiting queue was still rising at %.2f requests/s at the end of the step (%.0f waiting)",
			s.Server.WaitingSlopePerS, s.Server.WaitingAtEnd))
	}
	if th.MaxTTFTHalfRatio > 0 && ev.FirstHalfN >= int64(th.MinHalfSamples) && ev.SecondHalfN >= int64(th.MinHalfSamples) && ev.TTFTFirstHalfP50 > 0 {
		r := float64(ev.TTFTSecondHalfP50) / float64(ev.TTFTFirstHalfP50)
		if r > th.MaxTTFTHalfRatio && ev.TTFTSecondHalfP50-ev.TTFTFirstHalfP50 >= th.MinTTFTRise {
			why = append(why, fmt.Sprintf("TTFT p50 rose from %.1f ms in the first half to %.1f ms in the second (×%.2f, limit ×%.2f)",
				ms(ev.TTFTFirstHalfP50), ms(ev.TTFTSecondHalfP50), r, th.MaxTTFTHalfRatio))
		}
	}
	if len(why) == 0 {
		return report.Hazard{}, false
	}
	return report.Hazard{
		Kind:    HazardNotSteady,
		Message: "the step passed before reaching a steady state: " + strings.Join(why, "; "),
		Fix:     "lengthen the step (and the warm-up) until the queue stops growing; at this rate the server may be past its capacity",
	}, true
}

func lengthMismatch(s *report.StepReport, ev stepEvidence, th Thresholds) (report.Hazard, bool) {
	if th.MaxMismatchFraction <= 0 || ev.LengthChecked == 0 {
		return report.Hazard{}, false
	}
	f := float64(s.LengthMismatches) / float64(ev.LengthChecked)
	if f <= th.MaxMismatchFraction {
		return report.Hazard{}, false
	}
	return report.Hazard{
		Kind: HazardLengthMismatch,
		Message: fmt.Sprintf("%d of %d requests (%.1f%%) came back with prompt or output lengths more than %.0f%% off what the workload asked for",
			s.LengthMismatches, ev.LengthChecked, 100*f, 100*th.LengthTolerance),
		Fix: "make the server honour the lengths (ignore_eos and min_tokens must be accepted; check --max-model-len and the tokenizer), or the workload is not the one you meant to test",
	}, true
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

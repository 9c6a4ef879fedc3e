package verdict

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/report"
)

// DefaultShedP99 is the overload gate's default limit on the p99 of a shed
// request's time to its 503: a refusal is only kind when it is fast.
const DefaultShedP99 = 250 * time.Millisecond

// OverloadSettings configures the overload gate.
type OverloadSettings struct {
	// ShedP99 limits the p99 of a shed request's time from its intended
	// send to its 503 (0: DefaultShedP99).
	ShedP99 time.Duration
	// QueuedReqs is the admission limit the step's server was given, when
	// the caller knows it (llmslo tune sets it); 0: not known.
	QueuedReqs int
}

// metRate is a rate that met every SLO, and the requests in the system
// there.
type metRate struct{ rate, inSystem float64 }

// OverloadRun judges the steps of one run in turn: a step that met every
// SLO is kept, so that a later one that failed can name the admission
// limit read there. The run loop holds one per run, so that settings stay
// plain values that a plan can share.
type OverloadRun struct {
	Settings OverloadSettings
	met      *metRate // the last step of this run that met every SLO
}

// Judge is JudgeOverload with what the run's earlier steps showed.
func (r *OverloadRun) Judge(s *report.StepReport) *report.OverloadGate {
	g := judgeOverload(s, r.Settings, r.met)
	if g.Pass && s.Requests.Shed == 0 && s.Verdict == report.VerdictPass {
		if n := InSystem(s); n > 0 {
			r.met = &metRate{rate: s.RateTarget, inSystem: n}
		}
	}
	return g
}

// InSystem is how many requests a step held at once on average, by
// Little's law: the achieved rate times the mean end-to-end latency (the
// server's own peak, running plus waiting, where no latency was measured).
func InSystem(s *report.StepReport) float64 {
	if s.RateAchieved > 0 && s.E2EL.Mean > 0 {
		return s.RateAchieved * s.E2EL.Mean / 1000
	}
	return s.Server.MaxRunning + s.Server.MaxWaiting
}

// LowerQueuedLimit is the admission limit to try after one with which
// the admitted requests broke an SLO while the excess was shed fast:
// three quarters of it (0 when none is left).
func LowerQueuedLimit(limit int) int { return limit * 3 / 4 }

// QueuedLimit is an admission limit (--max-num-queued-reqs, which caps
// running plus waiting) for a server that held n requests, running plus
// waiting, at its knee: one more. Past the knee the limit is always
// reached, so every admitted request waits behind a full queue; a limit
// much above what the knee held would let that queue outgrow the one the
// SLOs were met with.
func QueuedLimit(n float64) int { return int(math.Ceil(n)) + 1 }

// JudgeOverload judges a step run past the knee as the overload gate does,
// and sets its verdict (an invalid step stays invalid): shed requests
// answered within the limit at p99, the admitted requests within every
// latency SLO and the error-rate limit (shed ones apart), none left
// waiting past its timeout. A server that shed nothing while it fell
// behind queued instead of shedding: the message names the flag to set.
func JudgeOverload(s *report.StepReport, o OverloadSettings) *report.OverloadGate {
	return judgeOverload(s, o, nil)
}

// judgeOverload is JudgeOverload given the run's last step that met every
// SLO (nil: none), from which a failed gate reads the limit to set.
func judgeOverload(s *report.StepReport, o OverloadSettings, met *metRate) *report.OverloadGate {
	limit := o.ShedP99
	if limit <= 0 {
		limit = DefaultShedP99
	}
	g := &report.OverloadGate{ShedLimitMs: ms(limit), Shed: s.Shed, ErrorRateLimit: DefaultErrorRate().MaxRate}
	if q := s.Server.QueueTime; q != nil && q.Count > 0 {
		g.WorstQueueWaitS, g.WorstQueueWaitOver = q.MaxS, q.Over
	}
	check := func(name string, pass bool, detail string, args ...any) {
		g.Checks = append(g.Checks, report.GateCheck{Name: name, Pass: pass, Detail: fmt.Sprintf(detail, args...)})
	}
	shed := s.Requests.Shed > 0 && s.ShedTime != nil
	if shed {
		g.ShedP99Ms = s.ShedTime.P99
		check("shed_fast", g.ShedP99Ms <= g.ShedLimitMs, "shed requests got their 503 in %.1f ms at p99 (limit %.0f ms)", g.ShedP99Ms, g.ShedLimitMs)
	}
	var broke []string
	for _, r := range s.SLO {
		if r.Metric == string(report.MetricErrorRate) {
			g.ErrorRateLimit = r.MaxRate
			continue
		}
		if !r.Pass {
			broke = append(broke, fmt.Sprintf("%s p%g %.1f ms > %.0f ms", r.Metric, r.Percentile, r.ObservedMs, r.LimitMs))
		}
	}
	if s.OverCapacity != nil && !shed {
		broke = append(broke, fmt.Sprintf("the waiting queue grew by %.1f a second", s.OverCapacity.GrowthPerS))
	}
	if admitted := s.Requests.Judged() - s.Requests.Shed; admitted > 0 {
		g.AdmittedErrorRate = float64(s.Requests.Failed+s.Requests.Unfinished) / float64(admitted)
	}
	if g.AdmittedErrorRate > g.ErrorRateLimit {
		broke = append(broke, fmt.Sprintf("error rate %.2f%% > %.2f%%", 100*g.AdmittedErrorRate, 100*g.ErrorRateLimit))
	}
	check("admitted_met_slos", len(broke) == 0, "admitted requests: %s", orAll(broke, "every SLO met"))
	g.TimedOut = s.Requests.Unfinished + s.Errors[string(client.ClassStall)] + s.Errors[string(client.ClassTimeout)]
	check("none_timed_out", g.TimedOut == 0, "%d requests waited past their timeout or the drain bound", g.TimedOut)
	if s.Shed != nil {
		check("shed_share", true, "shed %d of %d (%.1f%%, 95%% interval %.1f%% to %.1f%%)", s.Shed.Count, s.Shed.Of, 100*s.Shed.Share, 100*s.Shed.CI95[0], 100*s.Shed.CI95[1])
	}
	g.Pass = true
	for _, c := range g.Checks {
		g.Pass = g.Pass && c.Pass
	}
	g.Message = gateMessage(g, o, shed)
	if next, why := nextLimit(s, g, o, met, shed); why != "" {
		g.SuggestedQueuedReqs, g.Message = next, g.Message+": "+why
	}
	if s.Verdict != report.VerdictInvalid {
		s.Verdict = report.VerdictFail
		if g.Pass {
			s.Verdict = report.VerdictPass
		}
	}
	s.OverloadGate = g
	return g
}

// gateMessage says what the gate found.
func gateMessage(g *report.OverloadGate, o OverloadSettings, shed bool) string {
	wait := "the server reported no queue time"
	if g.WorstQueueWaitS > 0 {
		over := "at most"
		if g.WorstQueueWaitOver {
			over = "over"
		}
		wait = fmt.Sprintf("worst queue wait %s %.4g s (the server's queue-time histogram)", over, g.WorstQueueWaitS)
	}
	var failed []string
	for _, c := range g.Checks {
		if !c.Pass {
			failed = append(failed, c.Detail)
		}
	}
	switch {
	case g.Pass && shed:
		return fmt.Sprintf("overload gate passed: %s; %s", g.Checks[len(g.Checks)-1].Detail, wait)
	case g.Pass:
		return "overload gate passed, but nothing was shed: the step did not overload the server; " + wait
	case !shed:
		return fmt.Sprintf("overload gate failed: the server queued instead of shedding (%s); %s", strings.Join(failed, "; "), wait)
	}
	return fmt.Sprintf("overload gate failed: %s; %s", strings.Join(failed, "; "), wait)
}

// nextLimit is the admission limit a failed gate names, and why: for a
// server that queued, the requests in the system at the run's last rate
// that met every SLO (past the knee any limit is always reached, so the
// admitted requests see what that many at once cost); for one that shed
// fast but whose admitted requests broke an SLO, a lower limit. Where the
// run holds no rate that met the SLOs, no value can be read from it, and
// why says so with no number.
func nextLimit(s *report.StepReport, g *report.OverloadGate, o OverloadSettings, met *metRate, shed bool) (int, string) {
	if g.Pass {
		return 0, ""
	}
	if !shed {
		if o.QueuedReqs > 0 {
			return o.QueuedReqs, fmt.Sprintf("set --max-num-queued-reqs %d so that overload gets fast 503s", o.QueuedReqs)
		}
		if met == nil {
			return 0, "set --max-num-queued-reqs to at most the requests in the system at the last rate that meets every SLO, so that overload gets " +
				"fast 503s; no step of this run met them, so the value cannot be read here: run a rate below the knee first (--rates LOW,HIGH) " +
				"or llmslo tune, which measures the knee and checks its limit with this gate"
		}
		return metLimit(met), fmt.Sprintf("set --max-num-queued-reqs %d so that overload gets fast 503s: %s", metLimit(met), metWhy(met))
	}
	for _, c := range g.Checks {
		if !c.Pass && c.Name != "admitted_met_slos" {
			return 0, "" // a lower limit would not help a slow refusal or a timeout
		}
	}
	limit := o.QueuedReqs
	if limit <= 0 {
		limit = int(math.Ceil(s.Server.MaxRunning + s.Server.MaxWaiting)) // the limit, as the server held it
	}
	lower := LowerQueuedLimit(limit)
	why := "three quarters of it"
	if met != nil && metLimit(met) < limit {
		lower, why = metLimit(met), metWhy(met)
	}
	if limit <= 0 || lower < 1 {
		return 0, "lower --max-num-queued-reqs: the admitted requests broke an SLO while the excess was shed fast, so too many ran at once"
	}
	return lower, fmt.Sprintf("lower --max-num-queued-reqs from %d to %d (%s): the admitted requests broke an SLO while the excess was shed fast, "+
		"so too many ran at once; where compute binds, each request admitted slows every one", limit, lower, why)
}

// metLimit is the admission limit read at a rate that met every SLO: the
// requests in the system there, rounded down.
func metLimit(m *metRate) int { return max(1, int(math.Floor(m.inSystem))) }

func metWhy(m *metRate) string {
	return fmt.Sprintf("%.1f requests were in the system at once (Little's law: rate × mean latency) at %g req/s, "+
		"the last rate of this run that met every SLO; a limit up to what the knee holds may pass too, and llmslo tune measures it", m.inSystem, m.rate)
}

func orAll(xs []string, none string) string {
	if len(xs) == 0 {
		return none
	}
	return strings.Join(xs, "; ")
}

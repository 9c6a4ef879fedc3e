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

// Overload configures the overload gate.
type Overload struct {
	// ShedP99 limits the p99 of a shed request's time from its intended
	// send to its 503 (0: DefaultShedP99).
	ShedP99 time.Duration
	// QueuedReqs is the admission limit to name when the server queues
	// instead of shedding (0: a little above what ran at once).
	QueuedReqs int
}

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
func JudgeOverload(s *report.StepReport, o Overload) *report.OverloadGate {
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
	if s.Overload != nil && !shed {
		broke = append(broke, fmt.Sprintf("the waiting queue grew by %.1f a second", s.Overload.GrowthPerS))
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
	g.Message = gateMessage(s, g, o, shed)
	if s.Verdict != report.VerdictInvalid {
		s.Verdict = report.VerdictFail
		if g.Pass {
			s.Verdict = report.VerdictPass
		}
	}
	s.OverloadGate = g
	return g
}

// gateMessage says what the gate found, and for a server that queued
// instead of shedding, the flag and value that make it shed.
func gateMessage(s *report.StepReport, g *report.OverloadGate, o Overload, shed bool) string {
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
		n := o.QueuedReqs
		if n <= 0 {
			n = QueuedLimit(max(float64(s.Server.MaxNumSeqs), s.Server.MaxRunning))
		}
		return fmt.Sprintf("overload gate failed: the server queued instead of shedding (%s); %s: set --max-num-queued-reqs %d so that overload gets fast 503s",
			strings.Join(failed, "; "), wait, n)
	}
	return fmt.Sprintf("overload gate failed: %s; %s", strings.Join(failed, "; "), wait)
}

func orAll(xs []string, none string) string {
	if len(xs) == 0 {
		return none
	}
	return strings.Join(xs, "; ")
}

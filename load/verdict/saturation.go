package verdict

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// clientSaturation judges a client that may not have kept its open-loop
// schedule by what its lateness did, not by how late it was: a late send
// matters when it could have changed the verdict. It can in two ways, and
// each is measured (docs/hazards.md):
//
//   - the delay enters what the client measures: a gated SLO judged
//     without it (from the actual send, less the scheduler's delay when
//     that was seen) comes out otherwise, pass for fail or conclusive for
//     not;
//   - the server saw another load than the schedule's: requests dropped,
//     fewer sent within the window than were due in it, a short window
//     that fell behind, or a share of sends late by a real fraction of the
//     gap between arrivals and of the service time, each on its 95%
//     interval, so that a few slow wake-ups among hundreds of sends decide
//     nothing.
//
// A client noticed late (send-lag or scheduler-latency p99 over its limit)
// whose lateness did neither is a note, with the figures that say so.
func clientSaturation(s *report.StepReport, ev stepEvidence, th Thresholds) finding {
	var seen []string
	lagSeen := th.MaxSendLagP99 > 0 && s.SendLag.Count > 0 && s.SendLag.P99 > ms(th.MaxSendLagP99)
	if lagSeen {
		seen = append(seen, fmt.Sprintf("send-lag p99 %.1f ms (noticed from %.0f ms)", s.SendLag.P99, ms(th.MaxSendLagP99)))
	}
	recv := 0.0 // the delay a starved scheduler may add to every read, ms
	if th.MaxSchedLatencyP99 > 0 && s.Client.SchedLatencyP99Ms > ms(th.MaxSchedLatencyP99) {
		recv = s.Client.SchedLatencyP99Ms
		seen = append(seen, fmt.Sprintf("Go scheduler latency p99 %.1f ms (noticed from %.0f ms)", recv, ms(th.MaxSchedLatencyP99)))
	}
	load, kept := loadChanges(s, ev, th)
	var flips, same []string
	if lagSeen || recv > 0 {
		flips, same = lagFlips(s, ev, recv)
	}
	if len(seen) == 0 && len(load) == 0 {
		return finding{}
	}
	if len(load) == 0 && len(flips) == 0 {
		why := append([]string{"every gated SLO comes out the same without the delay"}, same...)
		return finding{seen: true, Hazard: report.Hazard{
			Kind: HazardClientSaturation,
			Message: "the client was late (" + strings.Join(seen, "; ") + ") but could not have changed the verdict: " +
				strings.Join(append(why, kept...), "; "),
		}}
	}
	why := append(seen, load...)
	why = append(why, flips...)
	return finding{seen: true, decides: true, Hazard: report.Hazard{
		Kind:        HazardClientSaturation,
		ChangedLoad: len(load) > 0,
		Message:     "the client could not keep the open-loop schedule: " + strings.Join(why, "; "),
		Fix: saturationFix(s, ev, th) + "; a late client loads the server less than asked and adds its own delay to " +
			"what it measures, so neither its latencies nor its pass can be trusted",
	}}
}

// loadChanges lists how the load the server saw differed from the
// schedule's (changed), and otherwise what shows that it did not (kept).
func loadChanges(s *report.StepReport, ev stepEvidence, th Thresholds) (changed, kept []string) {
	if limit := s.Errors[string(client.ClassClientLimit)]; limit > 0 {
		changed = append(changed, fmt.Sprintf("%d requests never left for want of the client's own file descriptors or ports", limit))
	}
	if capped := s.Requests.Dropped - s.Errors[string(client.ClassClientLimit)]; !th.AllowDrops && capped > 0 {
		changed = append(changed, fmt.Sprintf("%d requests dropped by the in-flight cap", capped))
	}
	unit := "requests"
	if s.Sessions != nil {
		unit = "turns"
	}
	if ev.Due > 0 {
		short := max(ev.Due-ev.SentInWindow, 0)
		lo, hi := stats.WilsonInterval(int64(short), int64(ev.Due), CIConfidence)
		msg := fmt.Sprintf("%d of the %d %s due in the window went out within it", ev.SentInWindow, ev.Due, unit)
		if lo > 1-th.MinAchievedRatio {
			changed = append(changed, fmt.Sprintf("%s: %.1f%% short, 95%% interval %.1f–%.1f%%, over the %.0f%% allowed",
				msg, 100*float64(short)/float64(ev.Due), 100*lo, 100*hi, 100*(1-th.MinAchievedRatio)))
		} else {
			kept = append(kept, msg)
		}
	}
	if w := behindWindow(s, ev, th); w != "" {
		changed = append(changed, w)
	}
	if msg, late := lateSends(s, ev, th); late {
		changed = append(changed, msg)
	} else if msg != "" {
		kept = append(kept, msg)
	}
	return changed, kept
}

// lateSends counts the sends late by more than MaxLateFraction of the
// longer of the mean gap between arrivals and the median service time:
// lateness shorter than both neither bunches arrivals nor changes what the
// server has in hand. Nor does lateness under the server's own time
// granularity (lateFloor). late is true when the 95% interval of their
// share lies above MaxLateShare.
func lateSends(s *report.StepReport, ev stepEvidence, th Thresholds) (msg string, late bool) {
	lag := ev.SendLag
	if lag == nil || lag.Count() == 0 || ev.Due == 0 || s.DurationS <= 0 {
		return "", false
	}
	gap := time.Duration(s.DurationS / float64(ev.Due) * float64(time.Second))
	svc := serviceTime(s)
	limit := time.Duration(th.MaxLateFraction * float64(max(gap, svc)))
	floor, floorWhy := lateFloor(s, th)
	why := fmt.Sprintf("%.0f%% of the longer of the mean gap between arrivals, %.1f ms, and the median service time, %.1f ms",
		100*th.MaxLateFraction, ms(gap), ms(svc))
	if floor > limit {
		limit, why = floor, floorWhy
	}
	n, k := lag.Count(), lag.CountAbove(limit)
	lo, hi := stats.WilsonInterval(k, n, CIConfidence)
	msg = fmt.Sprintf("%d of %d sends were late by more than %.1f ms (%s)", k, n, ms(limit), why)
	if lo <= th.MaxLateShare {
		return msg, false
	}
	return fmt.Sprintf("%s: %.1f%%, 95%% interval %.1f–%.1f%%, over the %.0f%% allowed", msg, 100*float64(k)/float64(n), 100*lo, 100*hi, 100*th.MaxLateShare), true
}

// lateFloor is the shortest lateness that can matter to the server: its
// median inter-token gap (it admits arrivals at the step between two
// tokens, so two arrivals within one gap are treated alike) or
// MinLateness, the longer. At thousands of requests a second, a quarter
// of a 0.2 ms service time is below what a loaded kernel's timers resolve.
func lateFloor(s *report.StepReport, th Thresholds) (time.Duration, string) {
	floor, why := th.MinLateness, fmt.Sprintf("the floor of %.1f ms under which no server tells arrivals apart", ms(th.MinLateness))
	if h := s.Histograms[report.MetricITL]; h != nil && h.Count() > 0 && h.Quantile(50) > floor {
		floor = h.Quantile(50)
		why = fmt.Sprintf("the server's median inter-token gap, %.1f ms: arrivals within one step of its batch are treated alike", ms(floor))
	}
	return floor, why
}

// serviceTime is the median time the server took over a request, from its
// actual send to its last token (or first, without E2EL from send).
func serviceTime(s *report.StepReport) time.Duration {
	for _, m := range []report.Metric{report.MetricE2ELSend, report.MetricTTFTSend} {
		if h := s.Histograms[m]; h != nil && h.Count() > 0 {
			return h.Quantile(50)
		}
	}
	return 0
}

// behindWindow names the short window that fell furthest behind its share
// of the schedule, when the 95% interval of its shortfall lies above
// 1 − MinWindowRatio: a client that stalls and then catches up sends the
// whole step's count but bunches it. Windows hold about 20 arrivals, and
// last a second at least.
func behindWindow(s *report.StepReport, ev stepEvidence, th Thresholds) string {
	if ev.Due == 0 || s.DurationS <= 0 || len(ev.DuePerS) == 0 {
		return ""
	}
	w := max(1, int(math.Ceil(20/(float64(ev.Due)/s.DurationS))))
	secs := int(math.Ceil(s.DurationS))
	worst, worstLo := "", 0.0
	for from := 0; from < secs; from += w {
		to := min(from+w, secs)
		due, sent := sum(ev.DuePerS, from, to), sum(ev.SentPerS, from, to)
		if due == 0 || sent >= due {
			continue
		}
		lo, _ := stats.WilsonInterval(int64(due-sent), int64(due), CIConfidence)
		if lo > 1-th.MinWindowRatio && lo > worstLo {
			worstLo = lo
			worst = fmt.Sprintf("in seconds %d–%d of the window %d of %d due went out (the client fell behind and bunched its sends; at least %.0f%% short at 95%%, over the %.0f%% allowed)",
				from, to, sent, due, 100*lo, 100*(1-th.MinWindowRatio))
		}
	}
	return worst
}

func sum(xs []int, from, to int) int {
	n := 0
	for i := from; i < to && i < len(xs); i++ {
		n += xs[i]
	}
	return n
}

// lagFlips judges every gated latency SLO again without the client's
// delay: TTFT and E2EL from the actual send instead of the intended time,
// and every latency less recv, the scheduler's delay on reads, when that
// was seen. An SLO whose pass or conclusiveness differs is one the delay
// decides (flips); the others are listed with both figures (same).
func lagFlips(s *report.StepReport, ev stepEvidence, recv float64) (flips, same []string) {
	for i, slo := range ev.slos {
		if slo.Metric == report.MetricErrorRate {
			continue // a late client cannot make a server fail requests
		}
		with, ok := resultOf(s, ev, i)
		if !ok || with.Samples == 0 {
			continue
		}
		alt := withoutDelay(s, slo, ev.strict, recv)
		if alt.Pass != with.Pass || alt.Conclusive != with.Conclusive {
			flips = append(flips, fmt.Sprintf("%s is %.1f ms as measured and %.1f ms without the client's delay (limit %.0f ms%s): the delay decides it",
				slo.Name(), with.ObservedMs, alt.ObservedMs, ms(slo.Limit), conclusiveWord(with, alt)))
			continue
		}
		same = append(same, fmt.Sprintf("%s %.1f ms as measured, %.1f ms without the delay (limit %.0f ms)",
			slo.Name(), with.ObservedMs, alt.ObservedMs, ms(slo.Limit)))
	}
	return flips, same
}

func conclusiveWord(with, alt report.SLOResult) string {
	if with.Conclusive == alt.Conclusive {
		return ""
	}
	if with.Conclusive {
		return "; conclusive only with the delay"
	}
	return "; conclusive only without the delay"
}

// withoutDelay judges slo on the step's figures less the client's delay.
// A report from before E2EL from send was kept takes E2EL less the
// send-lag p99 instead.
func withoutDelay(s *report.StepReport, slo SLO, strict bool, recv float64) report.SLOResult {
	metric, shift := slo.Metric, recv
	switch slo.Metric {
	case report.MetricTTFT:
		metric = report.MetricTTFTSend
	case report.MetricE2EL:
		metric = report.MetricE2ELSend
	}
	if s.Histograms[metric] == nil {
		metric = slo.Metric
		if slo.Metric == report.MetricE2EL {
			shift += s.SendLag.P99
		}
	}
	res := judgeLatency(s.Histograms[metric], s.Clusters[metric], slo, strict)
	if shift <= 0 || res.Samples == 0 {
		return res
	}
	res.ObservedMs -= shift
	res.Pass = res.ObservedMs <= res.LimitMs
	if res.CI95Ms != nil {
		ci := [2]float64{res.CI95Ms[0] - shift, res.CI95Ms[1] - shift}
		res.CI95Ms = &ci
		res.Conclusive = ci[1] <= res.LimitMs || ci[0] > res.LimitMs
		if strict {
			res.Pass = ci[1] <= res.LimitMs
		}
	}
	return res
}

// resultOf is the step's result for ev.slos[i]: judgeSLOs gives the
// results in the order of the SLOs it was given.
func resultOf(s *report.StepReport, ev stepEvidence, i int) (report.SLOResult, bool) {
	if len(s.SLO) != len(ev.slos) {
		return report.SLOResult{}, false
	}
	return s.SLO[i], true
}

// saturationFix names the cause the figures point at, most specific first.
func saturationFix(s *report.StepReport, ev stepEvidence, th Thresholds) string {
	c := s.Client
	switch {
	case s.Errors[string(client.ClassClientLimit)] > 0:
		return fmt.Sprintf("%d requests never left: the client ran out of file descriptors or local ports; "+
			"raise its open-file limit (ulimit -n), lower the rate, or shard the load over more clients", s.Errors[string(client.ClassClientLimit)])
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

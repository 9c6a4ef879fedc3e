package verdict

import (
	"fmt"

	"github.com/llmslo/llmslo/load/report"
)

// warmCache finds a prefix cache that served more of the prompts than the
// workload shares. A warm cache makes a server look faster, never slower:
// it can turn a failure into a pass, so it makes only a passing step
// invalid; beside a failure it is a note.
func warmCache(s *report.StepReport, ev stepEvidence, th Thresholds) finding {
	h, ok := warmCacheSeen(s, ev, th)
	if !ok {
		return finding{}
	}
	if !ev.passing {
		h.Message += "; a warm cache makes a server look faster, never slower, so the failure stands"
		h.Fix = ""
	}
	return finding{Hazard: h, seen: true, decides: ev.passing}
}

func warmCacheSeen(s *report.StepReport, ev stepEvidence, th Thresholds) (report.Hazard, bool) {
	reset, fix := resetInWords(s.Server)
	fire := func(msg string) (report.Hazard, bool) {
		return report.Hazard{Kind: HazardWarmCache, Message: msg + " (" + reset + ")", Fix: fix}, true
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

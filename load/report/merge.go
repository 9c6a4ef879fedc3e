package report

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"

	"github.com/llmslo/llmslo/load/stats"
	"github.com/llmslo/llmslo/load/vllmapi"
)

// ShardPart is one shard's report of a step, with the shard's index.
type ShardPart struct {
	Index int
	Step  *StepReport
	// At and Secs place a part measured after others (MergeBlocks): its
	// seconds start at second At of the merged window, and those from
	// Secs on count in its last. Shards of one window leave both 0.
	At, Secs int
}

// MergeStep joins the shards' reports of one step into the step a single
// client sending the whole schedule would have reported (docs/sharding.md
// gives the rule for every field). Counts add; histograms merge exactly
// and the summaries are recomputed from them; timelines add second by
// second; the achieved rate counts every shard's sends within the shared
// window; throughput's span runs from the earliest shard's
// first send to the latest shard's last end; the server's figures are taken
// once; the client's are kept per shard in Shards, with the busiest shard's
// as the step's. The result is not judged: its SLO results, hazards,
// verdict and goodput are left for the caller.
func MergeStep(parts []ShardPart) (StepReport, error) {
	if len(parts) == 0 {
		return StepReport{}, fmt.Errorf("no shard to merge")
	}
	for _, p := range parts {
		if p.Step.Histograms == nil || p.Step.Evidence == nil {
			return StepReport{}, fmt.Errorf("shard %d's step %s has no histograms or evidence (a report from before sharding)", p.Index, p.Step.Name)
		}
	}
	m := mergeParts(parts)
	for _, p := range parts {
		s := p.Step
		m.Shards = append(m.Shards, ShardStep{
			Index: p.Index, Requests: s.Requests, RateAchieved: s.RateAchieved, SendLag: s.SendLag,
			Client: s.Client, Hazards: s.Hazards, Verdict: s.Verdict, Partial: s.Partial,
		})
	}
	mergeSpans(&m, parts)
	m.Server = serverOnce(&m, parts)
	m.Client = busiest(parts)
	return m, nil
}

// mergeParts adds what every merge adds alike: counts, histograms, the
// clusters, timeline and per-second counts each at its part's seconds,
// the evidence, and the summaries read from the merged histograms.
func mergeParts(parts []ShardPart) StepReport {
	first := parts[0].Step
	m := StepReport{
		Name: first.Name, RateTarget: first.RateTarget, Arrival: first.Arrival,
		DurationS: first.DurationS, WarmupS: first.WarmupS,
		Errors: map[string]int{}, Histograms: map[Metric]*stats.Histogram{}, Clusters: map[Metric]*stats.Clusters{},
		Evidence: &StepEvidence{
			TTFTFirstHalf: stats.NewHistogram(), TTFTSecondHalf: stats.NewHistogram(),
			SendLag: stats.NewHistogram(), BodyWrite: stats.NewHistogram(),
		},
	}
	for _, p := range parts {
		s := p.Step
		at, secs := p.At, p.Secs
		if secs <= 0 {
			secs = math.MaxInt
		}
		addInts(&m.Requests, &s.Requests)
		for k, n := range s.Errors {
			m.Errors[k] += n
		}
		for metric, h := range s.Histograms {
			if m.Histograms[metric] == nil {
				m.Histograms[metric] = stats.NewHistogram()
			}
			m.Histograms[metric].Merge(h)
		}
		for metric, c := range s.Clusters {
			if m.Clusters[metric] == nil {
				m.Clusters[metric] = stats.NewClusters()
			}
			m.Clusters[metric].MergeAt(c, at, secs)
		}
		e := s.Evidence
		m.Evidence.TTFTFirstHalf.Merge(e.TTFTFirstHalf)
		m.Evidence.TTFTSecondHalf.Merge(e.TTFTSecondHalf)
		m.Evidence.SendLag.Merge(e.SendLag)
		m.Evidence.BodyWrite.Merge(e.BodyWrite)
		m.Evidence.LengthChecked += e.LengthChecked
		m.Evidence.LengthLonger += e.LengthLonger
		m.Evidence.OutputAsked += e.OutputAsked
		m.Evidence.OutputGiven += e.OutputGiven
		m.Evidence.OutputRequests += e.OutputRequests
		m.Evidence.Due += e.Due
		m.Evidence.SentInWindow += e.SentInWindow
		m.Evidence.DuePerS = addCountsAt(m.Evidence.DuePerS, e.DuePerS, at, secs)
		m.Evidence.SentPerS = addCountsAt(m.Evidence.SentPerS, e.SentPerS, at, secs)
		m.Evidence.TTFTBlocks = MergeTTFTBlocks(m.Evidence.TTFTBlocks, e.TTFTBlocks)
		addInts(&m.Tokens, &s.Tokens) // output_per_s is recomputed below
		m.LengthMismatches += s.LengthMismatches
		m.LengthEndedEarly += s.LengthEndedEarly
		addInts(&m.PromptCache, &s.PromptCache)
		m.Timeline = addTimelineAt(m.Timeline, s.Timeline, at, secs)
		m.Partial = m.Partial || s.Partial
	}
	m.Shed = m.Requests.ShedShare()
	sum := func(metric Metric) stats.Summary {
		if h := m.Histograms[metric]; h != nil {
			return h.Summary()
		}
		return stats.Summary{}
	}
	m.TTFT, m.TTFTSend, m.ITL = sum(MetricTTFT), sum(MetricTTFTSend), sum(MetricITL)
	m.TPOT, m.E2EL = sum(MetricTPOT), sum(MetricE2EL)
	m.SendLag, m.BodyWrite = m.Evidence.SendLag.Summary(), m.Evidence.BodyWrite.Summary()
	return m
}

// addInts adds every integer field of src to dst's, both pointers to the
// same struct type: every count in a step's report adds across shards, and
// a count added to the schema later adds without a change here.
func addInts(dst, src any) {
	d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	for i := range d.NumField() {
		if f := d.Field(i); f.CanInt() && f.CanSet() {
			f.SetInt(f.Int() + s.Field(i).Int())
		}
	}
}

// addTimelineAt adds b's seconds to a's from second at on, b's seconds
// from secs on counted in its last (MergeBlocks): counts add, the maximum
// TTFT is the larger, the mean TTFT is weighted by completions.
func addTimelineAt(a, b []Second, at, secs int) []Second {
	for len(a) < at+min(len(b), secs) {
		a = append(a, Second{T: len(a)})
	}
	for i, s := range b {
		t := &a[at+min(i, secs-1)]
		if n := t.Completed + s.Completed; n > 0 {
			t.TTFTMeanMs = (t.TTFTMeanMs*float64(t.Completed) + s.TTFTMeanMs*float64(s.Completed)) / float64(n)
		}
		t.Sent += s.Sent
		t.Completed += s.Completed
		t.Failed += s.Failed
		t.Shed += s.Shed
		t.OutTokens += s.OutTokens
		t.TTFTMaxMs = max(t.TTFTMaxMs, s.TTFTMaxMs)
	}
	return a
}

// mergeSpans sets the merged throughput span by the single-client
// definitions: the first send is the earliest shard's, the end the
// latest; shards that sent nothing have no span. All offsets count from
// the shared start of the window. The achieved rate is every shard's sends
// within the shared window over its length.
func mergeSpans(m *StepReport, parts []ShardPart) {
	e := m.Evidence
	seen := false
	for _, p := range parts {
		pe := p.Step.Evidence
		if p.Step.Requests.Sent == 0 {
			continue
		}
		if !seen || pe.FirstSendMs < e.FirstSendMs {
			e.FirstSendMs = pe.FirstSendMs
		}
		if !seen || pe.LastEndMs > e.LastEndMs {
			e.LastEndMs = pe.LastEndMs
		}
		seen = true
	}
	if m.DurationS > 0 {
		m.RateAchieved = float64(e.SentInWindow) / m.DurationS
	}
	if span := e.LastEndMs - e.FirstSendMs; seen && span > 0 {
		m.Tokens.OutputPerS = float64(m.Tokens.Output) / (span / 1000)
	}
}

// addCountsAt adds b's counts to a's, index by index from index at on,
// b's from secs on counted in its last (MergeBlocks).
func addCountsAt(a, b []int, at, secs int) []int {
	for len(a) < at+min(len(b), secs) {
		a = append(a, 0)
	}
	for i, n := range b {
		a[at+min(i, secs-1)] += n
	}
	return a
}

// serverOnce takes the server's figures from one shard: every shard
// scraped the same server's /metrics over the same window, so adding them
// would count the server N times. It takes the lowest-indexed shard whose
// scrape worked; the cache counts as reset when any shard reset it (each
// tries just before the shared start).
func serverOnce(m *StepReport, parts []ShardPart) (st vllmapi.ServerStats) {
	pick := 0
	for i, p := range parts {
		if p.Step.Server.MetricsAvailable {
			pick = i
			break
		}
	}
	st = parts[pick].Step.Server
	for i, p := range parts {
		st.PrefixCacheReset = st.PrefixCacheReset || p.Step.Server.PrefixCacheReset
		if i == pick {
			m.Shards[i].ServerStats = true
		}
	}
	return st
}

// busiest is the client figures of the shard with the highest scheduler
// latency (then CPU): a real shard's figures, never a blend, and the ones
// client_saturation would name.
func busiest(parts []ShardPart) ClientStats {
	c := slices.MaxFunc(parts, func(a, b ShardPart) int {
		ca, cb := a.Step.Client, b.Step.Client
		if ca.SchedLatencyP99Ms != cb.SchedLatencyP99Ms {
			return cmp.Compare(ca.SchedLatencyP99Ms, cb.SchedLatencyP99Ms)
		}
		return cmp.Compare(ca.CPUUtilization, cb.CPUUtilization)
	})
	return c.Step.Client
}

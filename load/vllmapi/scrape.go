package vllmapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"golang.org/x/time/rate"
)

// ServerSample is one scrape of a vLLM server's /metrics, summed over label
// sets (several engines or models behind one endpoint add up).
type ServerSample struct {
	At            time.Time
	Running       float64
	Waiting       float64
	KVCacheUsage  float64 // fraction in [0,1]; the maximum over engines
	PrefixQueries float64 // tokens looked up in the prefix cache (counter)
	PrefixHits    float64 // of those, tokens found (counter)
	Preemptions   float64 // counter
	// QueueTimeSum and QueueTimeCount are the queue-time histogram's sum
	// (seconds) and count: requests that left the waiting queue, and how
	// long they waited in all.
	QueueTimeSum, QueueTimeCount float64
	// QueueTime is vllm:request_queue_time_seconds' cumulative buckets,
	// summed over series; nil when the server has no such histogram.
	QueueTime *Buckets
}

// metric names, V1 first and their pre-V1 spellings after: a server of
// either generation is read.
var (
	namesRunning  = []string{"vllm:num_requests_running"}
	namesWaiting  = []string{"vllm:num_requests_waiting"}
	namesKV       = []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}
	namesQueries  = []string{"vllm:prefix_cache_queries_total", "vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries"}
	namesHits     = []string{"vllm:prefix_cache_hits_total", "vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits"}
	namesPreempts = []string{"vllm:num_preemptions_total", "vllm:num_preemptions"}
	// namesQueueTime is vLLM's histogram of the time each request waited
	// before it was first scheduled.
	namesQueueTime = []string{"vllm:request_queue_time_seconds"}
)

// ParseServerMetrics reads vLLM's Prometheus text exposition. It fails when
// the text does not parse or carries none of vLLM's queue gauges.
func ParseServerMetrics(r io.Reader) (ServerSample, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return ServerSample{}, fmt.Errorf("parse /metrics: %w", err)
	}
	var s ServerSample
	found := false
	sum := func(names []string, max bool) float64 {
		for _, n := range names {
			f, ok := fams[n]
			if !ok {
				continue
			}
			found = true
			var v float64
			for _, m := range f.GetMetric() {
				x := metricValue(m)
				if max {
					if x > v {
						v = x
					}
				} else {
					v += x
				}
			}
			return v
		}
		return 0
	}
	s.Running = sum(namesRunning, false)
	s.Waiting = sum(namesWaiting, false)
	if !found {
		return s, fmt.Errorf("parse /metrics: no vllm:num_requests_running or vllm:num_requests_waiting")
	}
	s.KVCacheUsage = sum(namesKV, true)
	s.PrefixQueries = sum(namesQueries, false)
	s.PrefixHits = sum(namesHits, false)
	s.Preemptions = sum(namesPreempts, false)
	for _, n := range namesQueueTime {
		f, ok := fams[n]
		if !ok {
			continue
		}
		s.QueueTime = histBuckets(f)
		for _, m := range f.GetMetric() {
			if h := m.GetHistogram(); h != nil {
				s.QueueTimeSum += h.GetSampleSum()
				s.QueueTimeCount += float64(h.GetSampleCount())
			}
		}
		break
	}
	return s, nil
}

func metricValue(m *dto.Metric) float64 {
	switch {
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetUntyped() != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}

// ScrapeServer fetches and parses baseURL/metrics.
func ScrapeServer(ctx context.Context, hc *http.Client, baseURL string) (ServerSample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(baseURL, "/")+"/metrics", nil)
	if err != nil {
		return ServerSample{}, err
	}
	at := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return ServerSample{}, fmt.Errorf("scrape /metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ServerSample{}, fmt.Errorf("scrape /metrics: HTTP %d", resp.StatusCode)
	}
	s, err := ParseServerMetrics(io.LimitReader(resp.Body, 64<<20))
	s.At = at
	return s, err
}

// ServerStats summarises the server's metrics over a step's measured window.
type ServerStats struct {
	MetricsAvailable bool `json:"metrics_available"`
	// PrefixCacheReset is whether the prefix cache is known to have been
	// reset before the step; PrefixCacheResetStatus says how or why not
	// (ResetStatus).
	PrefixCacheReset       bool        `json:"prefix_cache_reset"`
	PrefixCacheResetStatus ResetStatus `json:"prefix_cache_reset_status,omitempty"`
	PrefixCacheHitRate     *float64    `json:"prefix_cache_hit_rate"` // null when no prompt tokens were looked up
	MaxWaiting             float64     `json:"max_waiting"`
	// WaitingSlopePerS is the least-squares slope of the waiting queue over
	// the second half of the step: a queue still rising at the end means
	// the server has not reached a steady state.
	WaitingSlopePerS float64 `json:"waiting_slope_per_s"`
	WaitingAtEnd     float64 `json:"waiting_at_end"`
	// WaitingRise is the slope times the span it was fitted over: how many
	// requests the queue gained in the second half (0 with under 3 samples).
	WaitingRise      float64 `json:"waiting_rise"`
	KVCacheUsageMax  float64 `json:"kv_cache_usage_max"`
	KVCacheUsageMean float64 `json:"kv_cache_usage_mean"`
	Preemptions      float64 `json:"preemptions"`
	// PrefixQueryTokens and PrefixHitTokens are the counters' rise over the
	// window: prompt tokens looked up in the prefix cache, and found.
	PrefixQueryTokens float64 `json:"prefix_query_tokens"`
	PrefixHitTokens   float64 `json:"prefix_hit_tokens"`
	// MaxRunning is the most requests running at once; RunningAtMaxShare
	// the share of the window's samples at that plateau. A server pinned
	// at its plateau while requests wait is bound by its batch size.
	MaxRunning        float64 `json:"max_running"`
	RunningAtMaxShare float64 `json:"running_at_max_share"`
	// QueuedShare is the share of the window's samples with a request
	// waiting: a server that always has one is saturated, admitting as
	// fast as it can. InSystemGrowth is running plus waiting at the
	// window's end less at its start: arrivals less completions over the
	// window, every request counted (the warm-up's too).
	QueuedShare    float64 `json:"queued_share"`
	InSystemGrowth float64 `json:"in_system_growth"`
	// MeanInSystem is running plus waiting averaged over the window's
	// samples: what an autoscaler polling those gauges sees on average.
	MeanInSystem float64 `json:"mean_in_system"`
	// MaxNumSeqs is the server's max_num_seqs when the run loop knows it
	// (the simulator); 0 otherwise, when MaxRunning stands in for it.
	MaxNumSeqs int `json:"max_num_seqs,omitempty"`
	// QueueTimeBlocks cuts the window in report.TrendBlocks blocks (fewer when
	// scrapes were sparse) and gives each the requests that left the
	// server's waiting queue in it and their mean wait: the server's own
	// record of the delay it added, which a prompt's length does not move.
	QueueTimeBlocks []QueueBlock `json:"queue_time_blocks,omitempty"`
	// QueueTime is the server's own record of how long requests waited
	// before they were first scheduled, over the same span as the
	// counters (absent when the server has no queue-time histogram).
	QueueTime *QueueTime `json:"queue_time,omitempty"`
	Samples   int        `json:"samples"`
	Error     string     `json:"error,omitempty"`
}

// Scraper polls a server's /metrics once per interval during a step.
type Scraper struct {
	hc      *http.Client
	baseURL string
	every   time.Duration

	mu      sync.Mutex
	samples []ServerSample
	lastErr error

	from, until time.Time
	stop        chan struct{}
	done        chan struct{}
}

// StartScraper scrapes at once, at from (the start of the measured window,
// whose sample is the baseline for counter deltas), at until (the end of the
// schedule, where the queue's trend is judged), and once per interval until
// Stop.
func StartScraper(ctx context.Context, hc *http.Client, baseURL string, every time.Duration, from, until time.Time) *Scraper {
	if every <= 0 {
		every = time.Second
	}
	s := &Scraper{hc: hc, baseURL: baseURL, every: every, from: from, until: until, stop: make(chan struct{}), done: make(chan struct{})}
	s.scrape(ctx)
	go s.loop(ctx, from, until)
	return s
}

func (s *Scraper) scrape(ctx context.Context) {
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	smp, err := ScrapeServer(sctx, s.hc, s.baseURL)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.lastErr = err
		return
	}
	s.samples = append(s.samples, smp)
}

func (s *Scraper) loop(ctx context.Context, from, until time.Time) {
	defer close(s.done)
	t := time.NewTicker(s.every)
	defer t.Stop()
	// The window's first and last scrapes always run; the periodic ones
	// go through a token bucket, so that a ticker firing next to them (or
	// catching up after a stall) never doubles the load on the server's
	// /metrics while it is being measured.
	periodic := rate.NewLimiter(rate.Every(s.every/2), 1)
	baseline := time.NewTimer(time.Until(from))
	defer baseline.Stop()
	end := time.NewTimer(time.Until(until))
	defer end.Stop()
	for {
		select {
		case <-baseline.C:
			s.scrape(ctx)
		case <-end.C:
			s.scrape(ctx)
		case <-t.C:
			if periodic.Allow() {
				s.scrape(ctx)
			}
		case <-s.stop:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Cut ends the window at until, before its planned end (a step stopped
// once decided): the queue's level and trend are judged up to it.
func (s *Scraper) Cut(until time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if until.Before(s.until) {
		s.until = until
	}
}

// Peek summarises the samples so far as if the window ended at until,
// without stopping: a look at a step in progress.
func (s *Scraper) Peek(until time.Time) ServerStats {
	s.mu.Lock()
	samples := slices.Clone(s.samples)
	s.mu.Unlock()
	return SummariseServer(samples, s.from, until)
}

// Stop takes a last scrape and summarises.
func (s *Scraper) Stop(ctx context.Context) ServerStats {
	close(s.stop)
	<-s.done
	if ctx.Err() == nil {
		s.scrape(ctx)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := SummariseServer(s.samples, s.from, s.until)
	if !st.MetricsAvailable && s.lastErr != nil {
		st.Error = s.lastErr.Error()
	}
	return st
}

// SummariseServer turns a step's samples, oldest first, into ServerStats.
// Counter deltas run from the sample nearest to from (the start of the
// measured window) to the last sample, so that requests finishing in the
// drain count; the queue's level and trend are judged up to the sample
// nearest to until (the end of the schedule), since the drain empties it.
// It needs two samples.
func SummariseServer(samples []ServerSample, from, until time.Time) ServerStats {
	var st ServerStats
	nearest := func(t time.Time) int {
		k := 0
		for i, x := range samples {
			if x.At.Sub(t).Abs() < samples[k].At.Sub(t).Abs() {
				k = i
			}
		}
		return k
	}
	if len(samples) == 0 {
		return st
	}
	k, e := nearest(from), nearest(until)
	samples = samples[k:]
	e = max(e-k, 0)
	st.Samples = len(samples)
	if len(samples) < 2 {
		return st
	}
	st.MetricsAvailable = true
	first, last := samples[0], samples[len(samples)-1]
	if dq := last.PrefixQueries - first.PrefixQueries; dq > 0 {
		hr := (last.PrefixHits - first.PrefixHits) / dq
		st.PrefixCacheHitRate = &hr
		st.PrefixQueryTokens, st.PrefixHitTokens = dq, last.PrefixHits-first.PrefixHits
	}
	st.Preemptions = last.Preemptions - first.Preemptions
	if last.QueueTime != nil {
		q := queueTimeDelta(first.QueueTime, last.QueueTime)
		st.QueueTime = &q
	}
	window := samples[:e+1]
	st.WaitingAtEnd = window[len(window)-1].Waiting
	for _, x := range window {
		st.MaxWaiting = max(st.MaxWaiting, x.Waiting)
		st.KVCacheUsageMax = max(st.KVCacheUsageMax, x.KVCacheUsage)
		st.KVCacheUsageMean += x.KVCacheUsage / float64(len(window))
		st.MaxRunning = max(st.MaxRunning, x.Running)
		st.MeanInSystem += (x.Running + x.Waiting) / float64(len(window))
	}
	for _, x := range window {
		if st.MaxRunning > 0 && x.Running >= st.MaxRunning-0.5 {
			st.RunningAtMaxShare += 1 / float64(len(window))
		}
		if x.Waiting >= 1 {
			st.QueuedShare += 1 / float64(len(window))
		}
	}
	st.InSystemGrowth = (window[len(window)-1].Running + window[len(window)-1].Waiting) - (window[0].Running + window[0].Waiting)
	st.QueueTimeBlocks = queueBlocks(window, from, until)
	half := window[len(window)/2:]
	st.WaitingSlopePerS = waitingSlope(half)
	if len(half) >= 3 {
		st.WaitingRise = st.WaitingSlopePerS * half[len(half)-1].At.Sub(half[0].At).Seconds()
	}
	return st
}

// waitingSlope is the least-squares slope of Waiting against time, per second.
func waitingSlope(s []ServerSample) float64 {
	if len(s) < 2 {
		return 0
	}
	t0 := s[0].At
	var sx, sy, sxx, sxy float64
	for _, x := range s {
		t := x.At.Sub(t0).Seconds()
		sx += t
		sy += x.Waiting
		sxx += t * t
		sxy += t * x.Waiting
	}
	n := float64(len(s))
	den := n*sxx - sx*sx
	if den == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / den
}

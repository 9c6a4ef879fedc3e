package observe

import (
	"sync"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// PerRequestLimits are the per-request thresholds that decide goodput: a
// request counts as good when it succeeded and met every limit that is set
// (zero means unset), as vLLM's --goodput does for TTFT, TPOT and E2EL.
type PerRequestLimits struct {
	TTFT time.Duration
	TPOT time.Duration
	E2EL time.Duration
}

// LengthCheck says when a request's reported lengths count as a mismatch:
// when usage differs from what was asked for by more than Tolerance
// (a fraction of the asked length, at least one token).
type LengthCheck struct {
	Tolerance float64
	// InputTolerance, when larger, is the tolerance on prompt lengths:
	// prompts sized from a fitted model rather than measured one by one
	// come close, not exact.
	InputTolerance float64
	// EarlyEndAllowed says the server's output lengths were declared
	// advisory (it stops at EOS whatever ignore_eos says): an output
	// shorter than asked is counted as ended early, not as a mismatch.
	EarlyEndAllowed bool
}

// Recorder turns outcomes into the statistics of one step. It is safe for
// concurrent use: request goroutines call Record as they finish.
//
// Requests whose intended time falls before MeasureFrom (the warm-up) are
// not measured: they load the server, and are only counted for progress
// (Snapshot.Warmup), so that a warm-up does not look stalled.
type Recorder struct {
	mu sync.Mutex

	measureFrom time.Time
	mid         time.Time // splits the step in halves for the steadiness check
	end         time.Time // the measured window's end
	limits      PerRequestLimits
	lengths     LengthCheck

	ttft, ttftSend, itl, tpot, e2el, lag *stats.Histogram
	e2elSend                             *stats.Histogram
	bodyWrite                            *stats.Histogram // Sent to the request's last byte written
	shedTime                             *stats.Histogram // intended send to the admission 503
	ttftFirstHalf, ttftSecondHalf        *stats.Histogram
	// ttftBlocks cut the window in report.TrendBlocks blocks of blockLen,
	// by intended send time, for the trend checks.
	ttftBlocks []report.TTFTBlock
	blockLen   time.Duration
	// timed keeps each completed request's TTFT by its intended time, so
	// that Cut can cut the halves and blocks again for a shorter window.
	timed []timedTTFT
	// clusters are the latencies again, by the second they were observed
	// in (a request's by its intended second, a gap by the second it
	// ended), for intervals that allow for correlated observations.
	ttftC, ttftSendC, itlC, tpotC, e2elC *stats.Clusters
	e2elSendC                            *stats.Clusters

	sent, completed, failed, unfinished, dropped int
	canceled                                     int // by the caller: not the server's failures
	abandoned                                    int // stopped mid-stream as planned: neither
	shed                                         int // refused at admission: not served, not failed
	good                                         int
	classes                                      map[client.ErrorClass]int
	messages                                     *ErrorMessages // the server's words, by class
	inputTokens, outputTokens                    int64
	multiTokenEvents, tokenEvents                int64
	usageMissing                                 int
	cachedPrompt, cachedOf                       int64 // cached prompt tokens, of prompt tokens, where reported
	cachedRequests                               int
	lengthChecked, lengthMismatched              int
	lengthLonger                                 int   // mismatches with more tokens than asked
	lengthEndedEarly                             int   // outputs shorter than asked where allowed
	outputAsked, outputGiven                     int64 // output tokens asked and given, over the checked requests that asked a length
	outputRequests                               int   // the checked requests that asked a length
	// due counts the measured requests whose time came (handed to the
	// sender or dropped); sentInWindow those sent before the window's
	// end; duePerS and sentPerS the same by second of the window.
	due, sentInWindow int
	duePerS, sentPerS []int
	firstSend         time.Time // the first measured send: throughput's span starts there
	lastEnd           time.Time // the last measured request's end
	inFlight          int
	warmup            Counts // the warm-up's requests, for progress only

	timeline []report.Second
}

// NewRecorder returns a recorder for a step whose measured window starts at
// measureFrom and lasts d.
func NewRecorder(measureFrom time.Time, d time.Duration, limits PerRequestLimits, lengths LengthCheck) *Recorder {
	return &Recorder{
		measureFrom:    measureFrom,
		mid:            measureFrom.Add(d / 2),
		end:            measureFrom.Add(d),
		limits:         limits,
		lengths:        lengths,
		ttft:           stats.NewHistogram(),
		ttftSend:       stats.NewHistogram(),
		itl:            stats.NewHistogram(),
		tpot:           stats.NewHistogram(),
		e2el:           stats.NewHistogram(),
		e2elSend:       stats.NewHistogram(),
		lag:            stats.NewHistogram(),
		bodyWrite:      stats.NewHistogram(),
		shedTime:       stats.NewHistogram(),
		ttftFirstHalf:  stats.NewHistogram(),
		ttftSecondHalf: stats.NewHistogram(),
		ttftBlocks:     make([]report.TTFTBlock, report.TrendBlocks),
		blockLen:       d / report.TrendBlocks,
		classes:        map[client.ErrorClass]int{},
		messages:       NewErrorMessages(),
		ttftC:          stats.NewClusters(),
		ttftSendC:      stats.NewClusters(),
		itlC:           stats.NewClusters(),
		tpotC:          stats.NewClusters(),
		e2elC:          stats.NewClusters(),
		e2elSendC:      stats.NewClusters(),
	}
}

// secOf is the second of the measured window t falls in, the cluster its
// observations go to.
func (r *Recorder) secOf(t time.Time) int { return int(t.Sub(r.measureFrom) / time.Second) }

// observe records d in a metric's histogram h and in its clusters c, in
// second sec.
func (r *Recorder) observe(h *stats.Histogram, c *stats.Clusters, sec int, d time.Duration) {
	h.Record(d)
	c.Record(sec, d)
}

// observeGaps records a stream's inter-token gaps, each in the second it
// ended; the first gap ends gaps[0] after first. It runs for every token,
// so the gaps' ends are offsets, not times.
func (r *Recorder) observeGaps(first time.Time, gaps []time.Duration) {
	end := first.Sub(r.measureFrom)
	for _, g := range gaps {
		end += g
		r.observe(r.itl, r.itlC, int(end/time.Second), g)
	}
}

func (r *Recorder) measured(intended time.Time) bool { return !intended.Before(r.measureFrom) }

func (r *Recorder) second(t time.Time) *report.Second {
	s := int(t.Sub(r.measureFrom) / time.Second)
	if s < 0 {
		s = 0
	}
	for len(r.timeline) <= s {
		r.timeline = append(r.timeline, report.Second{T: len(r.timeline)})
	}
	return &r.timeline[s]
}

// Started notes that a request was handed to the Doer.
func (r *Recorder) Started(intended time.Time) {
	if !r.measured(intended) {
		r.startedWarmup()
		return
	}
	r.mu.Lock()
	r.inFlight++
	r.countDue(intended)
	r.mu.Unlock()
}

// countDue counts a measured request whose time came within the window,
// in the second it was due in. A session's later turns may fall due after
// the window's end: they are measured, but the window's rate is not theirs.
func (r *Recorder) countDue(intended time.Time) {
	if !intended.Before(r.end) {
		return
	}
	r.due++
	bump(&r.duePerS, r.secOf(intended))
}

// bump adds one to (*c)[i], growing the slice; a second past the window
// (a late send) is counted too, so that the short windows see it.
func bump(c *[]int, i int) {
	if i < 0 {
		i = 0
	}
	for len(*c) <= i {
		*c = append(*c, 0)
	}
	(*c)[i]++
}

// Dropped counts a request the in-flight cap kept from being sent.
func (r *Recorder) Dropped(intended time.Time) {
	if !r.measured(intended) {
		return
	}
	r.mu.Lock()
	r.dropped++
	r.countDue(intended)
	r.classes[client.ClassDropped]++
	r.mu.Unlock()
}

// Record takes a finished request; at is when it ended. For one unfinished
// at the drain bound (ClassUnfinished), or abandoned by the client (a stall
// or the request timeout), at is when that happened: its elapsed times
// enter the latency histograms as lower bounds, and it counts against
// goodput and the error rate.
func (r *Recorder) Record(o *client.Outcome, at time.Time) {
	if !r.measured(o.Intended) {
		r.recordWarmup(o)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inFlight--
	if !o.Sent.IsZero() {
		r.sent++
		r.lag.Record(o.Sent.Sub(o.Intended))
		if !o.Written.IsZero() {
			r.bodyWrite.Record(o.Written.Sub(o.Sent))
		}
		if r.firstSend.IsZero() || o.Sent.Before(r.firstSend) {
			r.firstSend = o.Sent
		}
		r.second(o.Intended).Sent++
		if o.Sent.Before(r.end) && o.Intended.Before(r.end) {
			r.sentInWindow++ // of those due in the window, sent within it
		}
		bump(&r.sentPerS, r.secOf(o.Sent))
	}
	switch o.Class {
	case "":
		r.recordSuccess(o)
	case client.ClassUnfinished:
		r.unfinished++
		r.classes[o.Class]++
		r.recordLowerBounds(o, at)
	case client.ClassCanceled:
		r.canceled++
		r.classes[o.Class]++
	case client.ClassClientLimit:
		// Never sent, for want of the client's own resources: a drop,
		// as the in-flight cap's are, not a server failure.
		r.dropped++
		r.classes[o.Class]++
	case client.ClassAbandoned:
		// A user who pressed stop was not failed by the server, and the
		// TTFT of one who stopped after the first token is left out too:
		// only those whose token beat the stop would enter, the fast ones,
		// and most of all when the server is slow.
		r.abandoned++
	case client.ClassShed:
		// Refused at admission: apart from the server's failures, but a
		// user turned away was not served (the error rate counts it).
		r.shed++
		r.shedTime.Record(at.Sub(o.Intended)) // what a turned-away user waited for the no
		r.second(at).Shed++
		r.messages.Add(string(o.Class), o.Message)
	case client.ClassStall, client.ClassTimeout:
		// The client gave up, the user would still be waiting: what they
		// waited so far is a lower bound, as at the drain bound.
		r.failed++
		r.classes[o.Class]++
		r.second(at).Failed++
		r.recordLowerBounds(o, at)
	default:
		r.failed++
		r.classes[o.Class]++
		r.second(at).Failed++
		r.messages.Add(string(o.Class), o.Message)
	}
	if o.Class != client.ClassCanceled && at.After(r.lastEnd) {
		r.lastEnd = at
	}
}

func (r *Recorder) recordSuccess(o *client.Outcome) {
	r.completed++
	ttft := o.First.Sub(o.Intended)
	e2el := o.Last.Sub(o.Intended)
	at := r.secOf(o.Intended) // the cluster of the request's latencies
	r.observe(r.ttft, r.ttftC, at, ttft)
	r.observe(r.ttftSend, r.ttftSendC, at, o.First.Sub(o.Sent))
	r.observe(r.e2el, r.e2elC, at, e2el)
	r.observe(r.e2elSend, r.e2elSendC, at, o.Last.Sub(o.Sent))
	t := timedTTFT{at: o.Intended.Sub(r.measureFrom), ttft: ttft, prompt: int64(o.PromptTokens)}
	r.timed = append(r.timed, t)
	r.addToBlock(t)
	r.observeGaps(o.First, o.ITL)
	n := o.CompletionTokens
	// TPOT spans first to last token event: leave out a token that came
	// after the last (an end-of-sequence chunk without text).
	spanned := n - o.TrailingTokens
	var tpot time.Duration
	if spanned > 1 {
		tpot = o.Last.Sub(o.First) / time.Duration(spanned-1)
		r.observe(r.tpot, r.tpotC, at, tpot)
	}
	r.inputTokens += int64(o.PromptTokens)
	if o.CachedReported {
		r.cachedPrompt += int64(o.CachedPromptTokens)
		r.cachedOf += int64(o.PromptTokens)
		r.cachedRequests++
	}
	r.outputTokens += int64(n)
	r.tokenEvents += int64(o.TokenEvents)
	r.multiTokenEvents += int64(o.MultiTokenEvents)
	if !o.UsageReported {
		r.usageMissing++
	}
	r.checkLengths(o)
	if r.meetsLimits(ttft, tpot, e2el) {
		r.good++
	}
	sec := r.second(o.Last)
	sec.Completed++
	sec.OutTokens += int64(n)
	ms := float64(ttft) / float64(time.Millisecond)
	sec.TTFTMeanMs += (ms - sec.TTFTMeanMs) / float64(sec.Completed) // running mean
	if ms > sec.TTFTMaxMs {
		sec.TTFTMaxMs = ms
	}
}

// recordLowerBounds enters what an unfinished request had done by the drain
// bound: the slowest requests are exactly the ones that matter, so they are
// never left out of the histograms.
func (r *Recorder) recordLowerBounds(o *client.Outcome, at time.Time) {
	sec := r.secOf(o.Intended)
	if o.First.IsZero() {
		r.observe(r.ttft, r.ttftC, sec, at.Sub(o.Intended))
		if !o.Sent.IsZero() {
			r.observe(r.ttftSend, r.ttftSendC, sec, at.Sub(o.Sent))
		}
	} else {
		r.observe(r.ttft, r.ttftC, sec, o.First.Sub(o.Intended))
		r.observe(r.ttftSend, r.ttftSendC, sec, o.First.Sub(o.Sent))
		r.observeGaps(o.First, o.ITL)
		r.observe(r.itl, r.itlC, r.secOf(at), at.Sub(o.Last)) // the gap still open at the bound
	}
	r.observe(r.e2el, r.e2elC, sec, at.Sub(o.Intended))
	if !o.Sent.IsZero() {
		r.observe(r.e2elSend, r.e2elSendC, sec, at.Sub(o.Sent))
	}
}

func (r *Recorder) meetsLimits(ttft, tpot, e2el time.Duration) bool {
	l := r.limits
	return (l.TTFT == 0 || ttft <= l.TTFT) &&
		(l.TPOT == 0 || tpot <= l.TPOT) &&
		(l.E2EL == 0 || e2el <= l.E2EL)
}

func (r *Recorder) checkLengths(o *client.Outcome) {
	if !o.UsageReported {
		return
	}
	asked := o.Request
	off := func(got, want int, tolerance float64) bool {
		if want <= 0 {
			return false
		}
		tol := float64(want) * tolerance
		if tol < 1 {
			tol = 1
		}
		d := float64(got - want)
		return d > tol || -d > tol
	}
	if asked.InputTokens <= 0 && asked.OutputTokens <= 0 {
		return
	}
	r.lengthChecked++
	if asked.OutputTokens > 0 {
		r.outputRequests++
		r.outputAsked += int64(asked.OutputTokens)
		r.outputGiven += int64(o.CompletionTokens)
	}
	outputOff := off(o.CompletionTokens, asked.OutputTokens, r.lengths.Tolerance)
	if outputOff && r.lengths.EarlyEndAllowed && o.CompletionTokens < asked.OutputTokens {
		r.lengthEndedEarly++
		outputOff = false
	}
	if off(o.PromptTokens, asked.InputTokens, max(r.lengths.Tolerance, r.lengths.InputTolerance)) || outputOff {
		r.lengthMismatched++
		if o.PromptTokens > asked.InputTokens && asked.InputTokens > 0 ||
			o.CompletionTokens > asked.OutputTokens && asked.OutputTokens > 0 {
			r.lengthLonger++
		}
	}
}

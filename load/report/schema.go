package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/load/stats"
	"github.com/llmslo/llmslo/load/vllmapi"
)

// Version is the version of the JSON report's schema.
const Version = "1"

// Verdict is the outcome of a step or a run.
type Verdict string

// Verdicts, from best to worst. A run's verdict is its worst step's.
const (
	VerdictPass    Verdict = "pass"
	VerdictFail    Verdict = "fail"    // an SLO was violated
	VerdictInvalid Verdict = "invalid" // the measurement cannot be trusted (a hazard)
)

// Worse returns the worse of two verdicts.
func Worse(a, b Verdict) Verdict {
	rank := map[Verdict]int{"": 0, VerdictPass: 1, VerdictFail: 2, VerdictInvalid: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// TargetInfo names the server a run measured. It never holds an API key.
type TargetInfo struct {
	Kind  string `json:"kind"`
	URL   string `json:"url"`
	Model string `json:"model"`
	// Notes say, once for the run, what llmslo found the server not to
	// take or not to have (token-id prompts, /tokenize, ignore_eos) and
	// what it did instead, and output lengths declared advisory.
	Notes []string `json:"notes,omitempty"`
}

// Report is the JSON report of a run (docs/report.md): snake_case,
// times in milliseconds.
type Report struct {
	Version   string         `json:"version"`
	StartedAt time.Time      `json:"started_at"`
	Target    TargetInfo     `json:"target"`
	Fixture   *fixtures.Info `json:"fixture"`
	Seed      int64          `json:"seed"`
	// Run is what else the run sent, for a later run to check a baseline
	// against; absent in reports written before it was recorded.
	Run     *RunInfo     `json:"run,omitempty"`
	SLO     []SLOSpec    `json:"slo"`
	Steps   []StepReport `json:"steps"`
	Verdict Verdict      `json:"verdict"`
	// Capacity is set by a sweep: the highest rate that met every SLO.
	Capacity *Capacity `json:"capacity,omitempty"`
	// Outcome is what a sweep or tuning session found, where its verdict
	// alone would mislead (SearchOutcome): WriteJSON fills it in.
	Outcome string `json:"outcome,omitempty"`
	// Variants is set by a variant sweep: one capacity per server variant.
	Variants []Capacity `json:"variants,omitempty"`
	// Fit, Tune and Protect are a tuning session's first, middle and last
	// steps (docs/tuning.md): Fit is read before every run's first step,
	// Tune and Protect by llmslo tune.
	Fit     *Fit     `json:"fit,omitempty"`
	Tune    *Tune    `json:"tune,omitempty"`
	Protect *Protect `json:"protect,omitempty"`
	// Partial marks a run that was cancelled or cut short: its steps are
	// what was measured before it stopped.
	Partial bool   `json:"partial,omitempty"`
	Reason  string `json:"partial_reason,omitempty"`
	// Shard marks one shard's report of a sharded schedule; Merged a
	// report that llmslo merge joined from them (docs/sharding.md).
	Shard  *ShardInfo `json:"shard,omitempty"`
	Merged *MergeInfo `json:"merged,omitempty"`
	// Versus is the base side of a side-by-side run (docs/versus.md).
	Versus *Versus `json:"versus,omitempty"`
}

// SLOSpec is an SLO as the report states it.
type SLOSpec struct {
	Metric     string  `json:"metric"`
	Percentile float64 `json:"percentile,omitempty"`
	LimitMs    float64 `json:"limit_ms,omitempty"`
	MaxRate    float64 `json:"max_rate,omitempty"`
}

// RequestCounts counts a step's requests. Scheduled = sent + dropped +
// never sent (a cancelled step); sent = completed + failed + shed +
// unfinished + canceled + abandoned. Failed counts the server's failures
// only; Shed those it refused at admission (vLLM's 503 from
// --max-num-queued-reqs or --max-num-queued-tokens), which the error rate
// and goodput count against it all the same; Canceled those the caller cut
// off (an interrupted run); Abandoned those stopped mid-stream on purpose
// (--cancel-rate), which are neither failures nor in the latency
// percentiles.
type RequestCounts struct {
	Scheduled  int `json:"scheduled"`
	Sent       int `json:"sent"`
	Completed  int `json:"completed"`
	Failed     int `json:"failed"`
	Canceled   int `json:"canceled,omitempty"`
	Abandoned  int `json:"abandoned,omitempty"`
	Shed       int `json:"shed"`
	Unfinished int `json:"unfinished"`
	Dropped    int `json:"dropped"`
	Good       int `json:"good"` // completed and met every per-request limit (goodput)
}

// TokenCounts are the tokens the server reported for completed requests.
type TokenCounts struct {
	Input       int64   `json:"input"`
	Output      int64   `json:"output"`
	OutputPerS  float64 `json:"output_per_s"`
	Events      int64   `json:"token_events"`
	MultiEvents int64   `json:"multi_token_events"`
	// UsageMissing counts completed requests whose server sent no usage:
	// their output length is the count of token events.
	UsageMissing int `json:"usage_missing"`
}

// SLOResult is one SLO checked against one step.
type SLOResult struct {
	Metric     string      `json:"metric"`
	Percentile float64     `json:"percentile,omitempty"`
	LimitMs    float64     `json:"limit_ms,omitempty"`
	ObservedMs float64     `json:"observed_ms,omitempty"`
	CI95Ms     *[2]float64 `json:"ci95_ms,omitempty"`
	// DesignEffect is how many times fewer independent observations the
	// percentile rests on than Samples, as the step's clusters show it
	// (stats.Clusters.DesignEffect); CI95Ms allows for it. Absent when 1.
	DesignEffect float64 `json:"design_effect,omitempty"`
	MaxRate      float64 `json:"max_rate,omitempty"`
	Observed     float64 `json:"observed_rate,omitempty"`
	// CI95 is error_rate's 95% interval (Wilson score), as fractions.
	CI95    *[2]float64 `json:"ci95,omitempty"`
	Samples int64       `json:"samples"`
	// Conclusive is true when the 95% interval lies wholly on one side of
	// the limit; NeededSamples says how many a conclusive verdict at this
	// percentile needs at the least.
	Conclusive    bool  `json:"conclusive"`
	NeededSamples int64 `json:"needed_samples,omitempty"`
	Pass          bool  `json:"pass"`
	// NoObservations marks a latency SLO with nothing to judge (every
	// request failed, or none produced the metric): it fails, and its
	// observed value is absent, not 0 ms.
	NoObservations bool `json:"no_observations,omitempty"`
	// Anytime is the interval valid at every look (a step run until
	// decided), in ms or, for error_rate, as fractions; Conclusive then
	// rests on it rather than on the 95% interval. Absent otherwise.
	Anytime *Bounds `json:"anytime,omitempty"`
}

// NotJudged is a check a step could not make, and why: a server without
// vLLM's /metrics cannot show a warm cache, a growing queue or what binds
// it, and one that reports no usage cannot have its lengths checked.
// Nothing unjudged is silently taken as fine.
type NotJudged struct {
	Check  string `json:"check"`
	Reason string `json:"reason"`
}

// Hazard is a reason the measurement cannot be trusted.
type Hazard struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
	// ChangedLoad says the server saw another load than the schedule's
	// (a client that dropped, fell behind or bunched its sends): then even
	// the server's errors are not its errors at the asked rate.
	ChangedLoad bool `json:"changed_load,omitempty"`
}

// StepReport is one rate step.
type StepReport struct {
	Name         string  `json:"name"`
	RateTarget   float64 `json:"rate_target"`
	RateAchieved float64 `json:"rate_achieved"`
	Arrival      string  `json:"arrival"`
	DurationS    float64 `json:"duration_s"`
	// StartedAt is when the measured window began (after the warm-up).
	StartedAt time.Time      `json:"started_at,omitempty"`
	WarmupS   float64        `json:"warmup_s"`
	Requests  RequestCounts  `json:"requests"`
	Errors    map[string]int `json:"errors"`
	// Shed is the share of requests the server refused at admission
	// (Requests.Shed, not in Errors), absent when it refused none.
	Shed     *Share        `json:"shed,omitempty"`
	TTFT     stats.Summary `json:"ttft_ms"`
	TTFTSend stats.Summary `json:"ttft_send_ms"`
	ITL      stats.Summary `json:"itl_ms"`
	TPOT     stats.Summary `json:"tpot_ms"`
	E2EL     stats.Summary `json:"e2el_ms"`
	SendLag  stats.Summary `json:"send_lag_ms"`
	// BodyWrite is from the send to the request's last byte written: part
	// of what the user waits (TTFT from the intended time keeps it), apart
	// from the send lag that client_saturation judges.
	BodyWrite        stats.Summary       `json:"body_write_ms"`
	Goodput          float64             `json:"goodput"` // good / scheduled
	Tokens           TokenCounts         `json:"tokens"`
	Server           vllmapi.ServerStats `json:"server"`
	Client           ClientStats         `json:"client"`
	LengthMismatches int                 `json:"length_mismatches"`
	// LengthEndedEarly counts requests whose output ended before the asked
	// length on a server whose lengths were declared advisory (it stops at
	// EOS whatever ignore_eos says): they are no mismatch there, and are
	// counted here instead.
	LengthEndedEarly int `json:"length_ended_early,omitempty"`
	// PromptCache sums the cached prompt tokens the server reported per
	// request (usage.prompt_tokens_details.cached_tokens), where it did.
	PromptCache PromptCache `json:"prompt_cache"`
	Timeline    []Second    `json:"timeline,omitempty"`
	SLO         []SLOResult `json:"slo"`
	// Baseline compares the step with a recorded run, when one was asked for.
	Baseline []BaselineCheck `json:"baseline,omitempty"`
	// Versus compares the step with the base side's of a side-by-side run
	// (Report.Versus): the same checks, this step's percentile over the
	// base's, paired by the second both were sent in.
	Versus []BaselineCheck `json:"versus,omitempty"`
	// Blocks are the blocks an alternating side-by-side step was measured
	// in on this side (VersusAlternate), in order; the step is their merge.
	Blocks []StepBlock `json:"blocks,omitempty"`
	// Hazards are what made the step invalid: each could have changed its
	// verdict (docs/hazards.md). A hazard seen that could not have is a
	// note instead, with its figures.
	Hazards []Hazard `json:"hazards"`
	Notes   []Hazard `json:"notes,omitempty"`
	// OverCapacity is set when the server's waiting queue grew significantly
	// through the window: arrivals outpaced completions, so the step is
	// past the server's capacity and fails (docs/verdicts.md).
	OverCapacity *OverCapacity `json:"overload,omitempty"`
	// Binding, on a step that did not pass, says what bound the server.
	Binding *Binding `json:"binding,omitempty"`
	// HazardsOff lists the hazard kinds that were turned off for the step
	// and so were not judged.
	HazardsOff []string `json:"hazards_off,omitempty"`
	// NotJudged lists the checks the step could not make, with the reason.
	NotJudged []NotJudged `json:"not_judged,omitempty"`
	Verdict   Verdict     `json:"verdict"`
	Partial   bool        `json:"partial,omitempty"`
	// Retried lists the earlier attempts at this step that were measured
	// again because their client was starved (load.Plan.StarvedRetries),
	// each as its hazard's kind and message.
	Retried []string `json:"retried,omitempty"`
	// ErrorMessages are, by error class, the first few distinct messages
	// the server gave (observe.MessagesPerClass), API keys redacted.
	ErrorMessages map[string][]string `json:"error_messages,omitempty"`
	// Sessions and Turns are set when the step replayed sessions
	// (docs/sessions.md): its rates then count sessions per second.
	Sessions *SessionCounts `json:"sessions,omitempty"`
	Turns    *TurnPositions `json:"turns,omitempty"`

	// Histograms holds the step's latency histograms (TTFT, TTFT from
	// send, ITL, TPOT, E2EL), whole: a report read back (a baseline, a
	// shard to merge) gives every percentile and interval again.
	Histograms map[Metric]*stats.Histogram `json:"histograms,omitempty"`
	// Clusters holds the same observations by the second they were made
	// in, from which each latency SLO's design effect is estimated (see
	// stats.Clusters); they merge across shards as histograms do.
	Clusters map[Metric]*stats.Clusters `json:"clusters,omitempty"`
	// Evidence is what the hazards were judged on besides the figures
	// above; Shards, in a merged step, each shard's own share.
	Evidence *StepEvidence `json:"evidence,omitempty"`
	Shards   []ShardStep   `json:"shards,omitempty"`

	// ShedTime is how long the shed requests waited for their 503, from
	// their intended send time; OverloadGate the overload gate's checks,
	// on a step run as one (docs/verdicts.md).
	ShedTime     *stats.Summary `json:"shed_time_ms,omitempty"`
	OverloadGate *OverloadGate  `json:"overload_gate,omitempty"`
	// UntilDecided is set on a step run until decided: when it stopped and
	// why, or that it ran to its cap (docs/verdicts.md).
	UntilDecided *UntilDecided `json:"until_decided,omitempty"`
}

// Histogram returns the step's histogram of a latency metric, for callers
// that need more than the summary (HDR logs, custom percentiles).
func (s *StepReport) Histogram(m Metric) *stats.Histogram { return s.Histograms[m] }

// WriteJSON writes the report to path, creating its directory.
func (r *Report) WriteJSON(path string) error {
	out := *r
	out.Outcome = r.SearchOutcome()
	b, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// ClientStats says how busy the load generator itself was during a step:
// a saturated client delays sends and inflates every latency it measures.
type ClientStats struct {
	// CPUUtilization is the process's CPU time (user + system) over the
	// window divided by wall time × GOMAXPROCS: 1 means every P was busy
	// the whole time. It can exceed 1 slightly when threads outside the
	// Go scheduler (cgo, the kernel's accounting granularity) add time.
	CPUUtilization float64 `json:"cpu_utilization"`
	// SchedLatencyP99Ms is the 99th percentile, in milliseconds, of the
	// time goroutines spent runnable before they ran during the window
	// (runtime/metrics /sched/latencies:seconds, which samples about one
	// transition in eight), reported as the upper edge of the runtime's
	// histogram bucket: buckets are a quarter of a power of two wide, so
	// the figure errs high by up to 25% and never low.
	SchedLatencyP99Ms float64 `json:"sched_latency_p99_ms"`
	// GOMAXPROCS is the value when the window ended.
	GOMAXPROCS int `json:"gomaxprocs"`
}

// Second is one second of a step's timeline, by intended send time for
// sends and by completion time for completions.
type Second struct {
	T          int     `json:"t_s"`
	Sent       int     `json:"sent"`
	Completed  int     `json:"completed"`
	Failed     int     `json:"failed"`
	Shed       int     `json:"shed,omitempty"`
	TTFTMaxMs  float64 `json:"ttft_max_ms"`
	TTFTMeanMs float64 `json:"ttft_mean_ms"`
	OutTokens  int64   `json:"output_tokens"`
}

// OverCapacity is the evidence that a step ran past the server's capacity.
type OverCapacity struct {
	// GrowthPerS is how much faster arrivals came than the server
	// admitted them, in requests per second, as the rule that fired read
	// it: the waiting queue's least-squares slope over the window's second
	// half, or the requests the server held more at the window's end than
	// at its start over the window's length. Rise is the requests gained.
	GrowthPerS float64 `json:"growth_per_s"`
	Rise       float64 `json:"rise"`
	Message    string  `json:"message"`
}

// HasHazard reports whether the step has a hazard of the kind.
func (s *StepReport) HasHazard(kind string) bool {
	for _, h := range s.Hazards {
		if h.Kind == kind {
			return true
		}
	}
	return false
}

// ErrorRate is the fraction of the requests the server was left to answer
// that it did not serve: failed, shed at admission or unfinished; those the
// caller cancelled or abandoned are not counted.
func (s *StepReport) ErrorRate() float64 {
	judged := s.Requests.Judged()
	if judged <= 0 {
		return 0
	}
	return float64(s.Requests.Unserved()) / float64(judged)
}

// SetGoodput fills goodput: good requests over those that were due, less
// those abandoned on purpose (a user who pressed stop was not failed by
// the server, and a cancel rate must not cap goodput).
func (s *StepReport) SetGoodput(due int) {
	due -= s.Requests.Abandoned
	if due > 0 {
		s.Goodput = float64(s.Requests.Good) / float64(due)
	}
}

// Due is how many of the step's requests were due, as a step counts them
// for goodput: all those scheduled, or for a step cut short those whose
// time had come and that the cut did not cancel.
func (s *StepReport) Due() int {
	if s.Partial {
		return s.Requests.Sent - s.Requests.Canceled + s.Requests.Dropped
	}
	return s.Requests.Scheduled
}

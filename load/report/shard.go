package report

import (
	"encoding/json"
	"time"

	"github.com/llmslo/llmslo/load/stats"
)

// ShardInfo marks the report of one shard of a schedule (llmslo run
// --shard I/N): the process sent arrivals Index, Index+Count, … of the one
// schedule every shard computed alike. It also states what all shards must
// share, so that llmslo merge can refuse reports that do not belong
// together (docs/sharding.md).
type ShardInfo struct {
	Index   int       `json:"index"`
	Count   int       `json:"count"`
	StartAt time.Time `json:"start_at"`
	// The schedule: every shard must have run it alike.
	Rates     []float64 `json:"rates"`
	Arrival   string    `json:"arrival"`
	DurationS float64   `json:"duration_s"`
	WarmupS   float64   `json:"warmup_s"`
	DrainS    float64   `json:"drain_s"`
	API       string    `json:"api"`
	// How the steps were judged, so that the merged steps are judged alike:
	// Thresholds is the verdict.Thresholds the run was given, as JSON;
	// LengthsAdvisory that the server's output lengths were declared
	// advisory (load.Plan.LengthsAdvisory).
	Strict          bool            `json:"strict,omitempty"`
	Thresholds      json.RawMessage `json:"thresholds,omitempty"`
	LengthsAdvisory bool            `json:"lengths_advisory,omitempty"`
}

// MergeInfo marks a report that llmslo merge joined from shard reports.
type MergeInfo struct {
	Count   int       `json:"count"`
	StartAt time.Time `json:"start_at"`
	// Sources are the shard reports, by shard index.
	Sources []string `json:"sources"`
}

// ShardStep is one shard's share of a merged step: what cannot be added
// up (the client's own figures) is kept per shard.
type ShardStep struct {
	Index        int           `json:"index"`
	Requests     RequestCounts `json:"requests"`
	RateAchieved float64       `json:"rate_achieved"`
	SendLag      stats.Summary `json:"send_lag_ms"`
	Client       ClientStats   `json:"client"`
	// Hazards are those the shard found in its own share (too_few_samples
	// is expected there); only client_saturation carries into the merged
	// step, the others are judged again on the merged data.
	Hazards []Hazard `json:"hazards"`
	Verdict Verdict  `json:"verdict"`
	Partial bool     `json:"partial,omitempty"`
	// ServerStats marks the shard whose /metrics figures the merged step
	// took: every shard scraped the same server over the same window.
	ServerStats bool `json:"server_stats,omitempty"`
}

// StepEvidence is what a step's hazards were judged on besides its
// summary, kept in the report so that shards' steps can be merged and
// judged again. Times are milliseconds from the start of the measured
// window, which all shards of a schedule share.
type StepEvidence struct {
	// The first send and the end of the last request: the span of the
	// output throughput.
	FirstSendMs float64 `json:"first_send_ms"`
	LastEndMs   float64 `json:"last_end_ms"`
	// LengthChecked counts completed requests whose lengths were checked
	// (LengthMismatches counts those off).
	LengthChecked int `json:"length_checked"`
	// TTFT of the requests due in the first and the second half of the
	// window (for the reader: no verdict rests on them, since a trace's
	// mix of prompt lengths moves them by itself; see TTFTBlocks), send
	// lag and body write (client_saturation).
	TTFTFirstHalf  *stats.Histogram `json:"ttft_first_half"`
	TTFTSecondHalf *stats.Histogram `json:"ttft_second_half"`
	SendLag        *stats.Histogram `json:"send_lag"`
	BodyWrite      *stats.Histogram `json:"body_write"`
	// Due counts the measured requests whose intended time came (sent or
	// dropped); SentInWindow those of them sent before the window ended.
	// DuePerS and SentPerS are the same by second of the window, due by
	// intended time and sent by the time it was sent: the achieved rate
	// over the step and over short windows (client_saturation).
	Due          int   `json:"due"`
	SentInWindow int   `json:"sent_in_window"`
	DuePerS      []int `json:"due_per_s,omitempty"`
	SentPerS     []int `json:"sent_per_s,omitempty"`
	// LengthLonger counts the length mismatches where the server read or
	// wrote more than asked: more work, which could slow it.
	LengthLonger int `json:"length_longer"`
	// OutputAsked and OutputGiven sum the output tokens asked and given
	// over the OutputRequests length-checked requests that asked a
	// length: how much lighter than asked a declared-advisory server's
	// workload was.
	OutputAsked    int64 `json:"output_asked,omitempty"`
	OutputGiven    int64 `json:"output_given,omitempty"`
	OutputRequests int   `json:"output_requests,omitempty"`
	// TTFTBlocks are the window's TrendBlocks blocks of completed
	// requests, by intended send time: the trend checks' evidence from
	// the client's side, with each request's own prompt length.
	TTFTBlocks []TTFTBlock `json:"ttft_blocks,omitempty"`
}

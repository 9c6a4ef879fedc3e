package stats

import (
	"encoding/json"
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// histogramJSON is how a Histogram travels in a report: the HDR histogram
// in its compressed V2 encoding (base64, as HdrHistogram's own tools write
// it) and the exact figures the buckets cannot give back.
type histogramJSON struct {
	HDR     string  `json:"hdr"`
	SumNs   float64 `json:"sum_ns"`
	MaxNs   int64   `json:"max_ns"`
	Clamped int64   `json:"clamped,omitempty"`
}

// MarshalJSON encodes the histogram whole, so that a report read back
// (a baseline, a shard to merge) has every percentile and interval again.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	return json.Marshal(histogramJSON{HDR: string(encodeV2(h.h)), SumNs: h.sum, MaxNs: int64(h.max), Clamped: h.clamped})
}

// UnmarshalJSON restores a histogram MarshalJSON wrote.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var j histogramJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	dec, err := hdrhistogram.Decode([]byte(j.HDR))
	if err != nil {
		return fmt.Errorf("decode histogram: %w", err)
	}
	fresh := NewHistogram()
	if dec.LowestTrackableValue() != fresh.h.LowestTrackableValue() || dec.HighestTrackableValue() != fresh.h.HighestTrackableValue() ||
		dec.SignificantFigures() != fresh.h.SignificantFigures() {
		return fmt.Errorf("decode histogram: range [%d, %d] at %d digits, want [%d, %d] at %d", dec.LowestTrackableValue(),
			dec.HighestTrackableValue(), dec.SignificantFigures(), fresh.h.LowestTrackableValue(), fresh.h.HighestTrackableValue(), histSigFigs)
	}
	*h = Histogram{h: dec, sum: j.SumNs, max: time.Duration(j.MaxNs), clamped: j.Clamped}
	return nil
}

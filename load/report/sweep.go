package report

// Capacity is what a sweep found. PassRate is the highest rate whose step
// passed (0 when none did); FailRate the lowest rate that failed (0 when
// none did). The knee lies in [PassRate, FailRate]: that bracket is its
// interval, and Precision the relative width the sweep refined it to.
// Binding says what binds at FailRate; Curve is every step's rate and
// gated percentiles, in rate order.
type Capacity struct {
	PassRate  float64      `json:"pass_rps"`
	FailRate  float64      `json:"fail_rps,omitempty"`
	Precision float64      `json:"precision,omitempty"`
	Binding   *Binding     `json:"binding,omitempty"`
	Curve     []CurvePoint `json:"curve,omitempty"`
	// Variant is the server flags this sweep ran with, in a variant sweep.
	Variant string `json:"variant,omitempty"`
}

// CurvePoint is one step of a sweep on the latency-against-rate curve.
type CurvePoint struct {
	Rate      float64 `json:"rate"`
	TTFTP95Ms float64 `json:"ttft_p95_ms"`
	ITLP99Ms  float64 `json:"itl_p99_ms"`
	Verdict   Verdict `json:"verdict"`
}

// Binding is what limits a server at its knee, the evidence for it, and
// the setting to change (verdict.Binding).
type Binding struct {
	Kind     string             `json:"kind"`
	Evidence string             `json:"evidence"`
	Flag     string             `json:"flag"`
	Figures  map[string]float64 `json:"figures,omitempty"`
}

package report

// UntilDecided is how a step run until decided ended: when it stopped and
// why, or that its cap came first, and the anytime intervals of its gated
// SLOs at each look, for the picture of the decision.
type UntilDecided struct {
	// MinS and CapS are the floor and the cap of the measured window, in
	// seconds: no look stops the step before MinS, and at CapS it is
	// judged on its full window as any step is.
	MinS float64 `json:"min_s"`
	CapS float64 `json:"cap_s"`
	// Decided is true when a look stopped the step, at AtS seconds into
	// the window, as Outcome ("pass" or "fail").
	Decided bool    `json:"decided"`
	AtS     float64 `json:"at_s,omitempty"`
	Outcome string  `json:"outcome,omitempty"`
	// Why says what decided it, or what was still open at the cap.
	Why string `json:"why"`
	// BaselineConfidence is the confidence of the step's last comparison
	// with its baseline or base server: the one it was decided on, or the
	// one on its full window at the cap, at what the looks before it left
	// of the error rate (0: none was made).
	BaselineConfidence float64 `json:"baseline_confidence,omitempty"`
	// SLOs names the gated SLOs, in the order of each look's bounds.
	SLOs  []string `json:"slos"`
	Looks []Look   `json:"looks,omitempty"`
}

// Look is one look at a step in progress: its time in the window, how
// many requests the judged cohort held (every earlier one finished), and
// each gated SLO's anytime interval then, in the order of Decision.SLOs.
type Look struct {
	AtS      float64  `json:"t_s"`
	Requests int      `json:"requests"`
	Bounds   []Bounds `json:"bounds"`
}

// Bounds is an interval whose sides may be open: a side the sample cannot
// bound yet is absent.
type Bounds struct {
	Lo *float64 `json:"lo,omitempty"`
	Hi *float64 `json:"hi,omitempty"`
}

// StoppedWhenDecided is r's first step that a look stopped before its
// cap, or nil when every step measured its whole window.
func (r *Report) StoppedWhenDecided() *StepReport {
	for i := range r.Steps {
		if u := r.Steps[i].UntilDecided; u != nil && u.Decided {
			return &r.Steps[i]
		}
	}
	return nil
}

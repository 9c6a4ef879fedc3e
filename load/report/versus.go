package report

// Versus modes: how a side-by-side run shares its load between the two
// servers.
const (
	// VersusTogether sends the whole schedule to both at the same moments.
	VersusTogether = "together"
	// VersusAlternate moves the load between them in blocks, in ABBA
	// order, leaving each block's transient out of both sides.
	VersusAlternate = "alternate"
)

// Versus is the base side of a side-by-side run: the same requests, from
// the same seed, were sent to it and to the run's own target, at the same
// moments or in alternating blocks (Mode). Its steps are judged on their own SLOs; the run's own steps
// hold the comparison (StepReport.Versus), which alone can fail them.
type Versus struct {
	Mode   string     `json:"mode"`
	Target TargetInfo `json:"target"`
	// Tolerance is the slowdown a ratio's interval may reach before it is a
	// regression: 0.1 allows ×1.10.
	Tolerance float64 `json:"tolerance"`
	// BlocksS and TransientS are an alternating run's blocks: each side's
	// step is measured in blocks of BlocksS seconds, in order, each after a
	// transient of TransientS seconds that is sent but not measured.
	BlocksS    []float64    `json:"blocks_s,omitempty"`
	TransientS float64      `json:"transient_s,omitempty"`
	Steps      []StepReport `json:"steps"`
	Verdict    Verdict      `json:"verdict"`
}

// Step is the base side's step named name, or nil.
func (v *Versus) Step(name string) *StepReport {
	if v == nil {
		return nil
	}
	for i := range v.Steps {
		if v.Steps[i].Name == name {
			return &v.Steps[i]
		}
	}
	return nil
}

package report

// RunInfo is what a run sent, beyond its seed, fixture and SLOs: the
// settings a later run must share for its comparison with this report as
// a baseline to be paired (docs/baselines.md). Reports written before it
// was recorded have none.
type RunInfo struct {
	// Arrival is the arrival process, as --arrival writes it.
	Arrival string `json:"arrival"`
	// Steps are the steps' names in the order they ran ("rate=8"):
	// a step's requests follow on from the steps before it.
	Steps []string `json:"steps"`
	API   string   `json:"api"`
	// DurationS and WarmupS are each step's measured window and warm-up.
	DurationS float64 `json:"duration_s"`
	WarmupS   float64 `json:"warmup_s"`
	// FixtureSHA256 is the hash of the fixture's content (lengths, arrival
	// offsets, prefix blocks, sessions) before any clipping, so a fixture
	// renamed or edited in place is told apart.
	FixtureSHA256 string `json:"fixture_sha256"`
}

package report

// BaselineCheck compares one gated percentile with the same step of a
// recorded run. Ratio is observed/baseline; RatioCI95 its interval, which
// carries both runs' sampling error (docs/baselines.md). It regressed when
// the whole interval lies above 1+Tolerance: a regression is called only
// when the data say so. Paired says both runs sent the same requests on the
// same schedule: the same seed, fixture, arrival, steps, API, duration and
// warm-up, each checked before the run started.
type BaselineCheck struct {
	Metric     string      `json:"metric"`
	Percentile float64     `json:"percentile"`
	BaselineMs float64     `json:"baseline_ms"`
	ObservedMs float64     `json:"observed_ms"`
	CI95Ms     *[2]float64 `json:"ci95_ms,omitempty"`
	Ratio      float64     `json:"ratio"`
	RatioCI95  *[2]float64 `json:"ratio_ci95,omitempty"`
	Paired     bool        `json:"paired"`
	Tolerance  float64     `json:"tolerance"`
	Regressed  bool        `json:"regressed"`
}

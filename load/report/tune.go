package report

// Fit is the first step of a tuning session, read before the first step:
// whether the server's KV cache holds max_num_seqs requests of the
// fixture's sizes (docs/tuning.md). A finding changes no verdict.
type Fit struct {
	// KVCacheTokens is the KV cache's capacity in tokens (blocks × block
	// size); 0 when it could not be read, and Note says why.
	KVCacheTokens int    `json:"kv_cache_tokens,omitempty"`
	KVCacheSource string `json:"kv_cache_source,omitempty"` // "simulator" or "vllm:cache_config_info"
	MaxModelLen   int    `json:"max_model_len,omitempty"`
	MaxNumSeqs    int    `json:"max_num_seqs,omitempty"` // 0: the server did not say
	// RequestTokensP95 and P99 are percentiles of a request's prompt plus
	// output tokens in the fixture as sent (after clipping).
	RequestTokensP95 float64 `json:"request_tokens_p95"`
	RequestTokensP99 float64 `json:"request_tokens_p99"`
	// RequestsAtP95 and P99 are how many requests of those sizes the KV
	// cache holds at once (N).
	RequestsAtP95 float64 `json:"requests_at_p95,omitempty"`
	RequestsAtP99 float64 `json:"requests_at_p99,omitempty"`
	// Margin is how many times max_num_seqs N must reach (1: N ≥ M).
	Margin float64 `json:"margin"`
	// Clipped counts the fixture's requests longer than max_model_len,
	// clipped to fit before the run.
	Clipped  int      `json:"clipped"`
	Requests int      `json:"requests"`
	Message  string   `json:"message"`
	Finding  *Finding `json:"finding,omitempty"`
	Note     string   `json:"note,omitempty"`
}

// Finding is something a run found that changes no verdict, with the
// flags that change it.
type Finding struct {
	Kind    string   `json:"kind"`
	Message string   `json:"message"`
	Flags   []string `json:"flags"`
}

// Tune is what llmslo tune did: each iteration's server flags, knee and
// decision, the flags it ended on and why it stopped.
type Tune struct {
	Iterations []TuneIteration `json:"iterations"`
	// FinalArgs are the flags to deploy, as vLLM serve takes them: those
	// kept and Protect's (the simulator's own left out, in SimulatorOnly);
	// for a server llmslo did not start, only the flags to add or change.
	// Command is them as one line (a vllm serve command line where the
	// server's flags are known), CommandNote what a reader must know to
	// trust it.
	FinalArgs     []string `json:"final_args"`
	Command       string   `json:"command"`
	CommandNote   string   `json:"command_note,omitempty"`
	SimulatorOnly []string `json:"simulator_only,omitempty"`
	Stop          string   `json:"stop"`
	// CannotChange says why no flag was changed (a URL target).
	CannotChange string `json:"cannot_change,omitempty"`
	// OverloadGate is the last step's overload gate, at 1.5× the final knee
	// with Protect's admission limit.
	OverloadGate *OverloadGate `json:"overload,omitempty"`
}

// TuneIteration is one sweep of the loop: the server's flags, the change
// it tried (none for the first), the knee it found and the decision.
type TuneIteration struct {
	Args      []string `json:"args"`
	Change    string   `json:"change,omitempty"`
	ChangeWhy string   `json:"change_why,omitempty"`
	PassRate  float64  `json:"pass_rps"`
	FailRate  float64  `json:"fail_rps,omitempty"`
	Binding   string   `json:"binding,omitempty"`
	Kept      bool     `json:"kept"`
	Why       string   `json:"why"`
}

// Protect is the last step of a tuning session, from the final knee:
// an admission limit and an autoscaler trigger (docs/tuning.md).
type Protect struct {
	KneeRate float64 `json:"knee_rps"`
	// HeldAtKnee is the most requests the server held at the knee,
	// running plus waiting, from its /metrics.
	HeldAtKnee       float64 `json:"held_at_knee"`
	MaxNumQueuedReqs int     `json:"max_num_queued_reqs"`
	Flag             string  `json:"flag"`
	// InSystemThreshold is the autoscaler's target for requests in the
	// system per replica, vllm:num_requests_running plus
	// vllm:num_requests_waiting: three quarters of their average over the
	// knee's scrapes.
	InSystemThreshold float64 `json:"in_system_threshold"`
	// ScaledObject is a KEDA ScaledObject with that Prometheus trigger,
	// as YAML.
	ScaledObject string `json:"scaled_object"`
	WhyNotGPU    string `json:"why_not_gpu_utilization"`
	Note         string `json:"note,omitempty"`
}

// OverloadGate is the overload gate's judgement of a step run past the
// knee: shed requests answered fast, admitted ones served within their
// SLOs, none left waiting past its timeout, and the shed share with its
// interval (docs/verdicts.md).
type OverloadGate struct {
	Pass bool `json:"pass"`
	// ShedP99Ms is the p99 of a shed request's time from its intended
	// send to its 503; ShedLimitMs the gate's limit on it.
	ShedP99Ms   float64 `json:"shed_p99_ms,omitempty"`
	ShedLimitMs float64 `json:"shed_limit_ms"`
	Shed        *Share  `json:"shed,omitempty"`
	// AdmittedErrorRate is the error rate of the requests the server
	// admitted (failed and unfinished over those not shed), judged
	// against ErrorRateLimit instead of the guard that counts shed ones.
	AdmittedErrorRate float64 `json:"admitted_error_rate"`
	ErrorRateLimit    float64 `json:"error_rate_limit"`
	// TimedOut counts requests left waiting past their timeout: abandoned
	// for a stall or the request timeout, or unfinished at the drain bound.
	TimedOut int `json:"timed_out"`
	// WorstQueueWaitS is the server's own worst queue wait in the step
	// (the upper edge of its queue-time histogram's highest bucket used);
	// WorstQueueWaitOver says the wait lay beyond it.
	WorstQueueWaitS    float64     `json:"worst_queue_wait_s,omitempty"`
	WorstQueueWaitOver bool        `json:"worst_queue_wait_over,omitempty"`
	Checks             []GateCheck `json:"checks"`
	Message            string      `json:"message"`
	// SuggestedQueuedReqs is the --max-num-queued-reqs the message names
	// for a failed gate; 0 when it names none (docs/tuning.md).
	SuggestedQueuedReqs int `json:"suggested_max_num_queued_reqs,omitempty"`
}

// GateCheck is one of the overload gate's assertions.
type GateCheck struct {
	Name   string `json:"name"`
	Pass   bool   `json:"pass"`
	Detail string `json:"detail"`
}

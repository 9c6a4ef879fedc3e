package tune

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/serveflags"
	"github.com/llmslo/llmslo/load/verdict"
)

// vLLM serve's defaults for the flags the loop turns, used when the
// server's flags do not set them and the server did not say.
const (
	DefaultGPUMemoryUtilization = 0.9
	DefaultMaxNumBatchedTokens  = 8192
	// MaxGPUMemoryUtilization is as far as the loop raises
	// --gpu-memory-utilization: above it vLLM leaves too little for
	// activations and CUDA graphs on most GPUs.
	MaxGPUMemoryUtilization = 0.95
	// MinMaxNumBatchedTokens is as low as the loop lowers
	// --max-num-batched-tokens: below it prefills crawl.
	MinMaxNumBatchedTokens = 512
)

// Change is one flag set to one value, and why.
type Change struct {
	Flag  string // e.g. "--max-num-seqs"
	Value string
	Why   string
}

// Args is the change as vLLM serve flags.
func (c Change) Args() []string { return []string{c.Flag, c.Value} }

func (c Change) String() string { return c.Flag + " " + c.Value }

// Server is what the loop knows of the server's settings: its flags, and
// what it reported at the knee (MaxNumSeqs from the server or its
// /metrics, 0 when unknown; MaxRunning the running plateau seen).
type Server struct {
	Args       []string
	MaxNumSeqs int
	MaxRunning float64
}

// Next is the one change that the binding constraint's row of
// docs/tuning.md names, applied to the server's current settings. ok is
// false when no flag of the server moves that constraint (compute, the
// client, an unknown binding, or a flag already at its limit); stop then
// says why the loop ends.
func Next(binding string, s Server) (c Change, stop string, ok bool) {
	switch binding {
	case verdict.BindMaxNumSeqs:
		cur := s.MaxNumSeqs
		if v, found := serveflags.Int(s.Args, "--max-num-seqs"); found {
			cur = v
		}
		if cur <= 0 {
			cur = int(s.MaxRunning) // the plateau stands in for the cap
		}
		if cur <= 0 {
			return c, "max_num_seqs binds but its value is unknown: set --max-num-seqs on the server", false
		}
		return Change{"--max-num-seqs", strconv.Itoa(2 * cur),
			fmt.Sprintf("max_num_seqs binds: the batch is pinned at %d while requests wait; twice the sequences", cur)}, "", true
	case verdict.BindKVCache:
		return nextKV(s.Args)
	case verdict.BindMaxNumBatchedTokens:
		cur := DefaultMaxNumBatchedTokens
		if v, found := serveflags.Int(s.Args, "--max-num-batched-tokens"); found {
			cur = v
		}
		if cur/2 < MinMaxNumBatchedTokens {
			return c, fmt.Sprintf("max_num_batched_tokens binds and is already %d: shorter prefill chunks would starve prefills", cur), false
		}
		return Change{"--max-num-batched-tokens", strconv.Itoa(cur / 2),
			fmt.Sprintf("prefill chunks stall decodes (ITL's tail fails while TTFT holds); half the token budget, from %d", cur)}, "", true
	case verdict.BindCompute:
		return c, "compute binds: no flag of this server moves it (more compute per request: --tensor-parallel-size, --quantization fp8, a faster GPU)", false
	case verdict.BindAdmission:
		// The limit is the operator's choice of where to shed: raising it
		// would tune past a decision tune cannot judge, and Protect then
		// proposes a limit of its own. The user raises it and tunes again.
		cur := "its --max-num-queued-reqs"
		if v, found := serveflags.Int(s.Args, "--max-num-queued-reqs"); found {
			cur = fmt.Sprintf("--max-num-queued-reqs %d", v)
		}
		return c, fmt.Sprintf("the server's own admission limit binds (%s): it sheds with 503s before its batch or compute binds; "+
			"raise or remove the limit and tune again to find what binds behind it, or add capacity", cur), false
	case verdict.BindClient:
		return c, "the client binds, not the server: give the load generator more cores or shard the load (--shard), then tune again", false
	case "":
		return c, "nothing binds that the server's metrics can name (no failing rate, or no /metrics)", false
	}
	return c, fmt.Sprintf("binding %q has no flag in docs/tuning.md", binding), false
}

// nextKV gives the KV cache more blocks: more of the GPU's memory first,
// then 8-bit KV entries; past both, only more GPUs help.
func nextKV(args []string) (Change, string, bool) {
	util := DefaultGPUMemoryUtilization
	if v, found := serveflags.Float(args, "--gpu-memory-utilization"); found {
		util = v
	}
	if util < MaxGPUMemoryUtilization-1e-9 {
		next := min(util+0.05, MaxGPUMemoryUtilization)
		return Change{"--gpu-memory-utilization", strconv.FormatFloat(next, 'f', 2, 64),
			fmt.Sprintf("the KV cache binds: more of the GPU's memory for it, from %.2f", util)}, "", true
	}
	if dt, _ := serveflags.Value(args, "--kv-cache-dtype"); dt != "fp8" {
		return Change{"--kv-cache-dtype", "fp8",
			fmt.Sprintf("the KV cache binds at --gpu-memory-utilization %.2f: 8-bit KV entries hold twice the tokens", util)}, "", true
	}
	return Change{}, "the KV cache binds with --gpu-memory-utilization at its limit and fp8 KV entries: more GPUs (--tensor-parallel-size) or a shorter --max-model-len", false
}

// Knee is what one sweep found: the bracket, what binds at its failing
// rate, and the SLOs (by metric) that failed there.
type Knee struct {
	Pass, Fail float64
	Binding    string
	Failed     []string
}

// Decision is whether a change is kept, whether the loop goes on, and why.
type Decision struct {
	Keep bool
	// Trade says the change broke another SLO than the one that failed
	// before: the loop stops, as the lesson's step 5 says.
	Trade bool
	Why   string
}

// Assess decides on a change from the knee before it (prev) and after it
// (next). It is kept only when the new knee lies beyond the old bracket:
// the rate that failed before now passes. A change that did not move the
// knee is undone; one after which another SLO fails first is a trade.
func Assess(prev, next Knee, c Change) Decision {
	switch {
	case prev.Fail > 0 && next.Pass >= prev.Fail:
		return Decision{Keep: true, Why: fmt.Sprintf("%s moved the knee from %s to %s req/s", c, Bracket(prev.Pass, prev.Fail), Bracket(next.Pass, next.Fail))}
	case prev.Fail == 0:
		return Decision{Why: "no failing rate before the change: nothing to compare the knee with"}
	}
	var broke []string
	for _, m := range next.Failed {
		if !slices.Contains(prev.Failed, m) {
			broke = append(broke, m)
		}
	}
	if len(broke) > 0 {
		return Decision{Trade: true, Why: fmt.Sprintf("%s trades one SLO for another: %s now fails first, at %s req/s (the knee was %s); undone",
			c, strings.Join(broke, ", "), fmtRate(next.Fail), Bracket(prev.Pass, prev.Fail))}
	}
	return Decision{Why: fmt.Sprintf("%s did not move the knee beyond %s req/s (now %s); undone", c, Bracket(prev.Pass, prev.Fail), Bracket(next.Pass, next.Fail))}
}

// Rates are the rates a sweep after a change starts from: the old knee's
// bracket, to see whether its failing rate now passes, then rates above
// it up to eight times, where a doubled batch or cache may take the knee.
func Rates(prev Knee) []float64 {
	var out []float64
	if prev.Pass > 0 {
		out = append(out, prev.Pass)
	}
	for _, f := range []float64{1, 1.5, 2, 3, 4, 6, 8} {
		out = append(out, RoundRate(prev.Fail*f))
	}
	return out
}

// Bracket writes a knee's bracket as "[pass, fail]".
func Bracket(pass, fail float64) string {
	f := "-"
	if fail > 0 {
		f = fmtRate(fail)
	}
	return "[" + fmtRate(pass) + ", " + f + "]"
}

func fmtRate(r float64) string { return strconv.FormatFloat(r, 'g', 4, 64) }

// RoundRate keeps a rate to three significant figures, as a person
// would write it.
func RoundRate(r float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(r, 'g', 3, 64), 64)
	return v
}

// LowerLimit is the admission limit to try after an overload gate that
// failed with limit: three quarters of it, when the excess was shed fast
// and nothing else failed but the admitted requests' SLOs (too many let in
// at once). ok is false when a lower limit would not help, or none is left.
func LowerLimit(limit int, g *report.OverloadGate) (lower int, ok bool) {
	if g == nil || g.Pass || g.Shed == nil {
		return limit, false
	}
	for _, c := range g.Checks {
		if !c.Pass && c.Name != "admitted_met_slos" {
			return limit, false
		}
	}
	lower = verdict.LowerQueuedLimit(limit)
	return lower, lower >= 1 && lower < limit
}

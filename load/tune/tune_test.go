package tune

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/serveflags"
	"github.com/llmslo/llmslo/load/verdict"
)

// Each binding's row of docs/tuning.md, as one concrete change.
func TestNextNamesTheBindingsFlag(t *testing.T) {
	cases := []struct {
		name    string
		binding string
		server  Server
		want    string // "" when the loop must stop
		stop    string // a part of the reason it stops
	}{
		{"max_num_seqs from the flags", verdict.BindMaxNumSeqs, Server{Args: []string{"--max-num-seqs", "4"}, MaxNumSeqs: 4}, "--max-num-seqs 8", ""},
		{"max_num_seqs the server told", verdict.BindMaxNumSeqs, Server{MaxNumSeqs: 256}, "--max-num-seqs 512", ""},
		{"max_num_seqs from the plateau", verdict.BindMaxNumSeqs, Server{MaxRunning: 48}, "--max-num-seqs 96", ""},
		{"max_num_seqs unknown", verdict.BindMaxNumSeqs, Server{}, "", "unknown"},
		{"kv_cache from the default", verdict.BindKVCache, Server{}, "--gpu-memory-utilization 0.95", ""},
		{"kv_cache from a low utilisation", verdict.BindKVCache, Server{Args: []string{"--gpu-memory-utilization=0.5"}}, "--gpu-memory-utilization 0.55", ""},
		{"kv_cache at the limit", verdict.BindKVCache, Server{Args: []string{"--gpu-memory-utilization", "0.95"}}, "--kv-cache-dtype fp8", ""},
		{"kv_cache with nothing left", verdict.BindKVCache, Server{Args: []string{"--gpu-memory-utilization", "0.95", "--kv-cache-dtype", "fp8"}}, "", "more GPUs"},
		{"prefill chunks from the default", verdict.BindMaxNumBatchedTokens, Server{}, "--max-num-batched-tokens 4096", ""},
		{"prefill chunks at the floor", verdict.BindMaxNumBatchedTokens, Server{Args: []string{"--max-num-batched-tokens", "512"}}, "", "starve"},
		{"compute", verdict.BindCompute, Server{MaxNumSeqs: 8}, "", "compute binds"},
		{"client", verdict.BindClient, Server{}, "", "client binds"},
		{"admission", verdict.BindAdmission, Server{Args: []string{"--max-num-queued-reqs", "12"}}, "", "own admission limit binds (--max-num-queued-reqs 12)"},
		{"nothing", "", Server{}, "", "nothing binds"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, stop, ok := Next(tc.binding, tc.server)
			if tc.want == "" {
				assert.False(t, ok, "%s", c)
				assert.Contains(t, stop, tc.stop)
				return
			}
			assert.True(t, ok, stop)
			assert.Equal(t, tc.want, c.String())
			assert.NotEmpty(t, c.Why)
		})
	}
}

// A change is kept only when the rate that failed before now passes; one
// after which another SLO fails first is a trade.
func TestJudgeKeepsOnlyAKneeBeyondItsBracket(t *testing.T) {
	c := Change{Flag: "--max-num-seqs", Value: "8"}
	ttft := []string{"ttft"}
	cases := []struct {
		name        string
		prev, next  Knee
		keep, trade bool
		why         string
	}{
		{"moved beyond", Knee{Pass: 2, Fail: 3, Failed: ttft}, Knee{Pass: 4.5, Fail: 6, Failed: ttft}, true, false, "from [2, 3] to [4.5, 6]"},
		{"the old failing rate passes", Knee{Pass: 2, Fail: 3, Failed: ttft}, Knee{Pass: 3, Fail: 4.5, Failed: ttft}, true, false, "moved the knee"},
		{"inside the old bracket", Knee{Pass: 2, Fail: 3, Failed: ttft}, Knee{Pass: 2, Fail: 3, Failed: ttft}, false, false, "did not move"},
		{"every rate failed", Knee{Pass: 2, Fail: 3, Failed: ttft}, Knee{Fail: 2, Failed: ttft}, false, false, "did not move"},
		{"another SLO fails first", Knee{Pass: 2, Fail: 3, Failed: []string{"itl"}}, Knee{Pass: 2, Fail: 3, Failed: []string{"ttft"}}, false, true, "ttft now fails first"},
		{"a knee moved up with another SLO failing is kept", Knee{Pass: 2, Fail: 3, Failed: []string{"itl"}}, Knee{Pass: 6, Fail: 9, Failed: ttft}, true, false, "moved"},
		{"no failing rate before", Knee{Pass: 8}, Knee{Pass: 8}, false, false, "nothing to compare"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Assess(tc.prev, tc.next, c)
			assert.Equal(t, tc.keep, d.Keep, d.Why)
			assert.Equal(t, tc.trade, d.Trade, d.Why)
			assert.Contains(t, d.Why, tc.why)
		})
	}
}

func TestRatesStartAtTheOldBracket(t *testing.T) {
	assert.Equal(t, []float64{2, 3, 4.5, 6, 9, 12, 18, 24}, Rates(Knee{Pass: 2, Fail: 3}))
	assert.Equal(t, []float64{1.5, 2.25, 3, 4.5, 6, 9, 12}, Rates(Knee{Fail: 1.5}), "no passing rate: from the failing one")
}

func TestFlagsSetKeepTheLastValue(t *testing.T) {
	args := []string{"--max-num-seqs", "4", "--profile", "h100-llama3-8b", "--max-num-seqs=6"}
	v, ok := serveflags.Int(args, "--max-num-seqs")
	assert.True(t, ok)
	assert.Equal(t, 6, v, "the last occurrence wins, as in vLLM")
	args = Apply(args, Change{Flag: "--max-num-seqs", Value: "8"}, Change{Flag: "--gpu-memory-utilization", Value: "0.95"})
	assert.Equal(t, []string{"--profile", "h100-llama3-8b", "--max-num-seqs", "8", "--gpu-memory-utilization", "0.95"}, args)
	_, ok = serveflags.Float(args, "--kv-cache-dtype")
	assert.False(t, ok)
	assert.Equal(t, "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 8 --served-model-name 'my model'",
		Command("meta-llama/Llama-3.1-8B-Instruct", []string{"--max-num-seqs", "8", "--served-model-name", "my model"}))
}

// The gate's last step is tried again with a lower limit only when the
// excess was shed fast and the admitted requests alone broke an SLO.
func TestLowerLimitOnlyWhenTooManyWereAdmitted(t *testing.T) {
	shed := &report.Share{Count: 10, Of: 40}
	check := func(name string, pass bool) report.GateCheck { return report.GateCheck{Name: name, Pass: pass} }
	admittedLate := &report.OverloadGate{Shed: shed, Checks: []report.GateCheck{check("shed_fast", true), check("admitted_met_slos", false), check("none_timed_out", true)}}
	slowShed := &report.OverloadGate{Shed: shed, Checks: []report.GateCheck{check("shed_fast", false), check("admitted_met_slos", false)}}
	queued := &report.OverloadGate{Checks: []report.GateCheck{check("admitted_met_slos", false)}}
	passed := &report.OverloadGate{Pass: true, Shed: shed}
	cases := []struct {
		name  string
		limit int
		gate  *report.OverloadGate
		want  int
		ok    bool
	}{
		{"too many admitted", 16, admittedLate, 12, true},
		{"slow 503s: a lower limit would not help", 16, slowShed, 16, false},
		{"nothing shed", 16, queued, 16, false},
		{"passed", 16, passed, 16, false},
		{"none left", 1, admittedLate, 0, false},
	}
	for _, tc := range cases {
		got, ok := LowerLimit(tc.limit, tc.gate)
		assert.Equal(t, tc.ok, ok, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
}

package render

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llmslo/llmslo/load/report"
)

func tunedReport() *report.Report {
	return &report.Report{Verdict: report.VerdictPass,
		Fit: &report.Fit{Message: "fit: the KV cache (24000 tokens) holds 2.7 requests of the p95 size (9000 tokens; 2.7 of the p99 size, 9000); max_num_seqs is 1024",
			Finding: &report.Finding{Kind: "kv_cache_fit", Message: "the KV cache holds 2.7 requests of the p95 size, fewer than max_num_seqs",
				Flags: []string{"--gpu-memory-utilization", "--kv-cache-dtype fp8"}}},
		Tune: &report.Tune{Iterations: []report.TuneIteration{
			{Args: []string{"--max-num-seqs", "4"}, PassRate: 11, FailRate: 12, Binding: "max_num_seqs", Kept: true, Why: "the server's flags as given"},
			{Args: []string{"--max-num-seqs", "8"}, Change: "--max-num-seqs 8", PassRate: 15, FailRate: 16.5, Binding: "compute", Kept: true, Why: "moved the knee"},
		}, Stop: "compute binds", Command: "vllm serve m --max-num-seqs 8"},
		Protect: &report.Protect{KneeRate: 15, HeldAtKnee: 11, MaxNumQueuedReqs: 14, Flag: "--max-num-queued-reqs 14", InSystemThreshold: 9.5,
			ScaledObject: "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\n", WhyNotGPU: "busy at all"},
	}
}

// Fit's finding, each iteration, the final command line and Protect show
// in the terminal, the CI summary and the HTML.
func TestTuneShowsInEveryFace(t *testing.T) {
	r := tunedReport()
	var term bytes.Buffer
	WriteSummary(&term, r)
	WriteTune(&term, r)
	md := Markdown("tune", r)
	page := renderHTML(t, r)
	for _, out := range []string{term.String(), md, page} {
		assert.Contains(t, out, "holds 2.7 requests of the p95 size")
		assert.Contains(t, out, "kv_cache_fit")
		assert.Contains(t, out, "--max-num-seqs 8")
		assert.Contains(t, out, "compute binds")
		assert.Contains(t, out, "vllm serve m --max-num-seqs 8")
		assert.Contains(t, out, "--max-num-queued-reqs 14")
	}
	assert.Contains(t, term.String(), "kind: ScaledObject")
	assert.Contains(t, page, "kind: ScaledObject")
	assert.Contains(t, term.String(), "not on GPU utilisation: busy at all")
}

// An overload step's gate shows in every face, and its error guard, which
// counts the shed requests, is not printed as a failure.
func TestOverloadGateShowsInEveryFace(t *testing.T) {
	r := &report.Report{Verdict: report.VerdictPass, Steps: []report.StepReport{{Name: "rate=12", Verdict: report.VerdictPass,
		SLO: []report.SLOResult{{Metric: "error_rate", MaxRate: 0.01, Observed: 0.3}},
		OverloadGate: &report.OverloadGate{Pass: true, Message: "overload gate passed: shed 20 of 51",
			Checks: []report.GateCheck{{Name: "shed_fast", Pass: true, Detail: "shed requests got their 503 in 6.0 ms at p99"}}}}}}
	var term bytes.Buffer
	WriteSummary(&term, r)
	for _, out := range []string{term.String(), Markdown("gate", r), renderHTML(t, r)} {
		assert.Contains(t, out, "overload gate passed: shed 20 of 51")
	}
	assert.NotContains(t, term.String(), "FAIL")
	assert.Contains(t, renderHTML(t, r), "503 in 6.0 ms at p99")
}

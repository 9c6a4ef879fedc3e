package ollamae2e

import (
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/workload"
)

// A server killed mid-step: the client keeps its schedule, what was in
// flight breaks (reset), what was sent after refuses to connect, each
// class counted as a failure, and the error guard fails the step.
func TestServerKilledMidStep(t *testing.T) {
	srv := startServer(t, Config{Parallel: 1})
	g := gate{api: workload.APICompletions, fixture: "fixed:64:256", rates: []float64{8}, duration: 12 * time.Second, warmup: 2 * time.Second,
		slos: []string{"ttft.p50<=2s"}}
	kill := time.AfterFunc(2*time.Second+6*time.Second, srv.Kill)
	defer kill.Stop()
	rep, err := g.run(t, srv)
	s := step(t, rep, err)
	failed := 0
	for _, n := range s.Errors {
		failed += n
	}
	if s.Verdict != report.VerdictFail || s.Requests.Failed == 0 || failed != s.Requests.Failed+s.Requests.Unfinished {
		t.Errorf("verdict %s, %d failed, %d unfinished, errors %v: want a failure, every failed request in a class", s.Verdict, s.Requests.Failed, s.Requests.Unfinished, s.Errors)
	}
	if s.Errors["connect"] == 0 {
		t.Errorf("errors %v: requests sent after the kill must fail to connect", s.Errors)
	}
	if r := s.SLO[len(s.SLO)-1]; r.Metric != "error_rate" || r.Pass || !r.Conclusive {
		t.Errorf("error guard %+v: want a conclusive failure", r)
	}
	assertHeld(t, s)
}

// A prompt longer than the server's context. Ollama names no context
// length in GET /v1/models, so llmslo cannot clip to it: the server
// truncates the prompt and serves it, and the lengths it reports show the
// workload was not the one asked for (length_mismatch makes the step
// invalid). Told the context (--max-model-len), llmslo clips the fixture
// to fit, counts the clipped requests, and the step passes.
func TestPromptLongerThanContext(t *testing.T) {
	srv := startServer(t, Config{Parallel: 1, NumCtx: 256})
	g := gate{api: workload.APICompletions, fixture: "fixed:400:16", rates: []float64{2}, duration: 10 * time.Second, warmup: time.Second,
		slos: []string{"ttft.p50<=2s"}}
	rep, err := g.run(t, srv)
	s := step(t, rep, err)
	if s.Verdict != report.VerdictInvalid || !s.HasHazard(verdict.HazardLengthMismatch) || s.LengthMismatches != s.Requests.Completed {
		t.Errorf("verdict %s, hazards %+v, %d of %d mismatched: want invalid for length_mismatch on every request", s.Verdict, s.Hazards, s.LengthMismatches, s.Requests.Completed)
	}
	g.maxLen = 256
	rep, err = g.run(t, srv)
	s = step(t, rep, err)
	if s.Verdict != report.VerdictPass || rep.Fixture.Clipped == 0 || s.LengthMismatches != 0 {
		t.Errorf("with the context given: verdict %s, %d fixture rows clipped, %d mismatches: want a pass on clipped requests", s.Verdict, rep.Fixture.Clipped, s.LengthMismatches)
	}
}

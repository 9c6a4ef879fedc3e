package ollamae2e

import (
	"testing"
	"time"
)

// startServer starts Ollama for a test; it is stopped when the test ends.
func startServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	begin := time.Now()
	srv, err := Start(t.Context(), t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	t.Logf("ollama serving %s at %s (started in %v)", srv.Model, srv.URL, time.Since(begin).Round(time.Millisecond))
	return srv
}

// The harness serves a model that answers, and Ollama's own timings of it.
func TestHarnessServesTheTinyModel(t *testing.T) {
	srv := startServer(t, Config{})
	tm, err := srv.Generate(t.Context(), "the city of", 16)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("native timings: %+v", tm)
	if tm.EvalCount != 16 || tm.PromptEvalCount < 2 {
		t.Fatalf("generated %d tokens from a prompt of %d; want 16 from at least 2", tm.EvalCount, tm.PromptEvalCount)
	}
}

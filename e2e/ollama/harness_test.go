package ollamae2e

import (
	"os"
	"strings"
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

// A version that does not build is an error that says so, with the
// build's own words: the tests fail on it, never skip.
func TestAVersionThatDoesNotBuildFails(t *testing.T) {
	_, _, err := binaryAt("v0.0.0-no-such-version", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "the pinned Ollama v0.0.0-no-such-version does not build") {
		t.Fatalf("error %v: want one naming the version that does not build", err)
	}
	t.Log(err)
}

// The version is go.mod's: the one place it is pinned.
func TestVersionIsGoModsPin(t *testing.T) {
	v, err := Version()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil || !strings.Contains(string(mod), "github.com/ollama/ollama "+v) {
		t.Fatalf("version %q is not the one go.mod requires (%v)", v, err)
	}
}

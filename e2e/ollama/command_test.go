package ollamae2e

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/report"
)

// The llmslo command against Ollama, as a user runs it: exit 0 on a pass,
// with the summary, the JSON report and the HTML page each saying what the
// server made llmslo do and what it could not judge; exit 1 when the
// server dies mid-step (the error guard fails the step).
func TestCommandAgainstOllama(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "llmslo")
	// Built in llmslo's own module, whose go.mod holds the command's
	// dependencies (this one holds only what the tests link).
	build := exec.Command("go", "build", "-o", bin, "./cmd/llmslo")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build llmslo: %v\n%s", err, out)
	}
	srv := startServer(t, Config{Parallel: 1})
	run := func(name string) (int, string) {
		t.Helper()
		cmd := exec.Command(bin, "run", "--target", srv.URL, "--model", srv.Model, "--fixture", "fixed:64:64", "--lengths-advisory",
			"--rates", "4", "--duration", "10s", "--warmup", "1s", "--slo", "ttft.p50<=1s",
			"--report", filepath.Join(dir, name+".json"), "--html", filepath.Join(dir, name+".html"))
		out, err := cmd.Output()
		t.Logf("llmslo run (%s):\n%s", name, out)
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), string(out)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	code, out := run("pass")
	if code == 2 { // refused, as runPassing allows once, for the machine's noise
		code, out = run("pass")
	}
	if code != 0 {
		t.Fatalf("exit %d below capacity; want 0", code)
	}
	for _, want := range []string{"note: the server rejects token-id prompts", "not judged (over_capacity): the server exposes no metrics"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary does not say %q", want)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, "pass.html"))
	if err != nil || !strings.Contains(string(page), "not judged (over_capacity)") || !strings.Contains(string(page), "prompts were sent as text") {
		t.Errorf("the HTML page (%v) does not say what was not judged and why prompts went as text", err)
	}
	var rep report.Report
	if b, err := os.ReadFile(filepath.Join(dir, "pass.json")); err != nil || json.Unmarshal(b, &rep) != nil || len(rep.Steps) != 1 || len(rep.Steps[0].NotJudged) == 0 || len(rep.Target.Notes) == 0 {
		t.Errorf("the JSON report (%v) lacks the step's not_judged or the target's notes", err)
	}

	kill := time.AfterFunc(5*time.Second, srv.Kill)
	defer kill.Stop()
	if code, _ := run("killed"); code != 1 {
		t.Errorf("exit %d with the server killed mid-step; want 1 (an SLO, the error guard, violated)", code)
	}
}

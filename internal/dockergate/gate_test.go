package dockergate

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDecideDocker(t *testing.T) {
	down := errors.New("dial unix /nonexistent/docker.sock: connect: no such file or directory")
	tests := []struct {
		name     string
		err      error
		required bool
		want     Action
		reason   string
	}{
		{"engine up", nil, false, RunTest, ""},
		{"engine up, required", nil, true, RunTest, ""},
		{"engine down", down, false, SkipTest, "DOCKER UNAVAILABLE, container test NOT RUN: no Docker engine answers: dial unix"},
		{"engine down, required", down, true, FailTest, "LLMSLO_REQUIRE_DOCKER=1: the container tests must run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := Decide(tt.err, tt.required)
			assert.Equal(t, tt.want, got)
			assert.Contains(t, reason, tt.reason)
		})
	}
}

// dockerGateProbeEnv marks the test binary run by TestRequireDockerWithDeadEngine.
const dockerGateProbeEnv = "LLMSLO_DOCKER_GATE_PROBE"

// TestDockerGateProbe is run by TestRequireDockerWithDeadEngine in a child
// process whose DOCKER_HOST points at a dead socket.
func TestDockerGateProbe(t *testing.T) {
	if os.Getenv(dockerGateProbeEnv) != "1" {
		t.Skip("runs only in the child process of TestRequireDockerWithDeadEngine")
	}
	Require(t)
	t.Log("REACHED: the probe ran past requireDocker")
}

func TestRequireDockerWithDeadEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the test binary twice")
	}
	run := func(required string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestDockerGateProbe$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(),
			dockerGateProbeEnv+"=1",
			"DOCKER_HOST=unix:///nonexistent/docker.sock",
			"DOCKER_CONTEXT=",
			RequireEnv+"="+required,
		)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := run("")
	assert.NoError(t, err, "without %s a dead engine skips:\n%s", RequireEnv, out)
	assert.Contains(t, out, "--- SKIP: TestDockerGateProbe")
	assert.Contains(t, out, "DOCKER UNAVAILABLE, container test NOT RUN")
	assert.NotContains(t, out, "REACHED")

	out, err = run("1")
	var exit *exec.ExitError
	assert.True(t, errors.As(err, &exit), "with %s=1 a dead engine fails the run: %v\n%s", RequireEnv, err, out)
	assert.Contains(t, out, "--- FAIL: TestDockerGateProbe")
	assert.True(t, strings.Contains(out, "the container tests must run"), out)
	assert.NotContains(t, out, "REACHED")
}

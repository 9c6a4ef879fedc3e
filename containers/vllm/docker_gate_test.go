package vllm

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/stretchr/testify/assert"
)

// requireDockerEnv turns "no Docker engine" from a skip into a failure, so
// that CI cannot go green without the container tests.
const requireDockerEnv = "LLMSLO_REQUIRE_DOCKER"

type dockerVerdict int

const (
	dockerRun dockerVerdict = iota
	dockerSkip
	dockerFail
)

// decideDocker says what a container test does given whether the engine
// answered and whether Docker is required.
func decideDocker(pingErr error, required bool) (dockerVerdict, string) {
	if pingErr == nil {
		return dockerRun, ""
	}
	reason := "no Docker engine answers: " + pingErr.Error()
	if required {
		return dockerFail, reason + " (" + requireDockerEnv + "=1: the container tests must run)"
	}
	return dockerSkip, "DOCKER UNAVAILABLE, container test NOT RUN: " + reason +
		" (set " + requireDockerEnv + "=1 to make this a failure)"
}

var (
	dockerPingOnce sync.Once
	dockerPingErr  error
)

// pingDocker asks the engine the docker command would use (DOCKER_HOST, or
// the default socket) for its version. testcontainers-go itself falls back
// to the default socket when DOCKER_HOST does not answer; the gate does not,
// so that DOCKER_HOST pointing at a dead engine reads as "no engine".
func pingDocker() error {
	dockerPingOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		cli, err := client.New(client.FromEnv)
		if err != nil {
			dockerPingErr = err
			return
		}
		defer cli.Close()
		_, dockerPingErr = cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true})
	})
	return dockerPingErr
}

// requireDocker skips (or, with LLMSLO_REQUIRE_DOCKER=1, fails) tb when no
// Docker engine answers. No registry is needed: images are built FROM scratch,
// and the reaper, whose image would be pulled, is turned off.
func requireDocker(tb testing.TB) {
	tb.Helper()
	switch verdict, reason := decideDocker(pingDocker(), os.Getenv(requireDockerEnv) == "1"); verdict {
	case dockerSkip:
		tb.Skip(reason)
	case dockerFail:
		tb.Fatal(reason)
	}
	if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
		tb.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
}

func TestDecideDocker(t *testing.T) {
	down := errors.New("dial unix /nonexistent/docker.sock: connect: no such file or directory")
	tests := []struct {
		name     string
		err      error
		required bool
		want     dockerVerdict
		reason   string
	}{
		{"engine up", nil, false, dockerRun, ""},
		{"engine up, required", nil, true, dockerRun, ""},
		{"engine down", down, false, dockerSkip, "DOCKER UNAVAILABLE, container test NOT RUN: no Docker engine answers: dial unix"},
		{"engine down, required", down, true, dockerFail, "LLMSLO_REQUIRE_DOCKER=1: the container tests must run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := decideDocker(tt.err, tt.required)
			assert.Equal(t, tt.want, got)
			assert.Contains(t, reason, tt.reason)
		})
	}
}

// dockerGateProbeEnv marks the test binary run by TestRequireDockerWithDeadEngine.
const dockerGateProbeEnv = "LLMSLO_VLLM_DOCKER_GATE_PROBE"

// TestDockerGateProbe is run by TestRequireDockerWithDeadEngine in a child
// process whose DOCKER_HOST points at a dead socket.
func TestDockerGateProbe(t *testing.T) {
	if os.Getenv(dockerGateProbeEnv) != "1" {
		t.Skip("runs only in the child process of TestRequireDockerWithDeadEngine")
	}
	requireDocker(t)
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
			requireDockerEnv+"="+required,
		)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := run("")
	assert.NoError(t, err, "without %s a dead engine skips:\n%s", requireDockerEnv, out)
	assert.Contains(t, out, "--- SKIP: TestDockerGateProbe")
	assert.Contains(t, out, "DOCKER UNAVAILABLE, container test NOT RUN")
	assert.NotContains(t, out, "REACHED")

	out, err = run("1")
	var exit *exec.ExitError
	assert.True(t, errors.As(err, &exit), "with %s=1 a dead engine fails the run: %v\n%s", requireDockerEnv, err, out)
	assert.Contains(t, out, "--- FAIL: TestDockerGateProbe")
	assert.True(t, strings.Contains(out, "the container tests must run"), out)
	assert.NotContains(t, out, "REACHED")
}

// Package dockergate decides what a test that needs a Docker engine does
// when none answers: skip loudly, or fail when LLMSLO_REQUIRE_DOCKER=1, so
// that CI on a machine with an engine never goes green without the
// container tests. It also tags a test's containers and proves that none
// was left behind (Labelled, AssertNoContainer). It is for tests only.
package dockergate

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"
)

// RequireEnv turns "no Docker engine" from a skip into a failure, so
// that CI cannot go green without the container tests.
const RequireEnv = "LLMSLO_REQUIRE_DOCKER"

// Action is what a container test does.
type Action int

// Actions.
const (
	RunTest  Action = iota // Docker answers
	SkipTest               // no Docker, and none is required
	FailTest               // no Docker, and one is required
)

// Decide says what a container test does given whether the engine
// answered and whether Docker is required.
func Decide(pingErr error, required bool) (Action, string) {
	if pingErr == nil {
		return RunTest, ""
	}
	reason := "no Docker engine answers: " + pingErr.Error()
	if required {
		return FailTest, reason + " (" + RequireEnv + "=1: the container tests must run)"
	}
	return SkipTest, "DOCKER UNAVAILABLE, container test NOT RUN: " + reason +
		" (set " + RequireEnv + "=1 to make this a failure)"
}

var (
	dockerPingOnce sync.Once
	dockerPingErr  error
)

// Ping asks the engine the docker command would use (DOCKER_HOST, or
// the default socket) for its version. testcontainers-go itself falls back
// to the default socket when DOCKER_HOST does not answer; the gate does not,
// so that DOCKER_HOST pointing at a dead engine reads as "no engine".
func Ping() error {
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

// Require skips (or, with LLMSLO_REQUIRE_DOCKER=1, fails) tb when no
// Docker engine answers. No registry is needed: images are built FROM scratch,
// and the reaper, whose image would be pulled, is turned off.
//
// Under -short it skips unless Docker is required: the contributor's quick
// loop and CI's race pass leave out the image builds and container starts,
// which the full pass runs (with LLMSLO_REQUIRE_DOCKER=1 they run under
// -short too).
func Require(tb testing.TB) {
	tb.Helper()
	required := os.Getenv(RequireEnv) == "1"
	if testing.Short() && !required {
		tb.Skip("-short: the container tests run in the full test pass, or under -short with " + RequireEnv + "=1")
	}
	switch verdict, reason := Decide(Ping(), required); verdict {
	case SkipTest:
		tb.Skip(reason)
	case FailTest:
		tb.Fatal(reason)
	}
	// For the whole test binary, once: t.Setenv would bar the container
	// tests from running in parallel, and the reaper's image is one no
	// test may rely on pulling.
	ryukOnce.Do(func() {
		if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
			os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
		}
	})
}

var ryukOnce sync.Once

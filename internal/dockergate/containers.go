package dockergate

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLabel marks the containers of one test, so that AssertNoContainer
// can prove none was left behind.
const TestLabel = "io.llmslo.test"

// Labelled tags a test's containers with a value unique to the test: it
// returns withLabels' option for that label (withLabels is the container
// API's own, serve.WithLabels or testcontainers.WithLabels) and the value,
// for AssertNoContainer.
func Labelled[O any](t testing.TB, withLabels func(map[string]string) O) (O, string) {
	id := fmt.Sprintf("%s-%d-%d", t.Name(), os.Getpid(), time.Now().UnixNano())
	return withLabels(map[string]string{TestLabel: id}), id
}

// AssertNoContainer asks the engine for any container, running or not,
// carrying the test's label (Labelled's value).
func AssertNoContainer(t testing.TB, id string) {
	t.Helper()
	assertNone(t, "label", TestLabel+"="+id)
}

// AssertNoContainerOf asks the engine for any container, running or not,
// made from img.
func AssertNoContainerOf(t testing.TB, img string) {
	t.Helper()
	assertNone(t, "ancestor", img)
}

// assertNone fails t when a container matches the filter (as in docker ps
// --filter key=value).
func assertNone(t testing.TB, key, value string) {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	require.NoError(t, err)
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add(key, value),
	})
	require.NoError(t, err)
	assert.Empty(t, list.Items, "containers left behind")
}

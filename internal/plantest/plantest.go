// Package plantest builds the parts of a load.Plan a test names in words
// (a fixture, an arrival process, SLOs), failing the test on a typo. Only
// the tests of load and load/tune import it.
package plantest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/fixtures/formats"
	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/verdict"
)

// MustFixture opens a fixture by name or path.
func MustFixture(t testing.TB, nameOrPath string) *fixtures.Fixture {
	t.Helper()
	fx, err := formats.Open(nameOrPath)
	require.NoError(t, err)
	return fx
}

// MustArrival parses an arrival process as --arrival takes it.
func MustArrival(t testing.TB, s string) arrival.Spec {
	t.Helper()
	a, err := arrival.Parse(s)
	require.NoError(t, err)
	return a
}

// MustSLOs parses SLO expressions as --slo takes them.
func MustSLOs(t testing.TB, exprs ...string) []verdict.SLO {
	t.Helper()
	slos, err := verdict.ParseSLOs(exprs)
	require.NoError(t, err)
	return slos
}

package slotest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// WithLengthsAdvisory declares the server's output lengths advisory; a
// plain gate holds the server to them.
func TestWithLengthsAdvisoryDeclaresTheServer(t *testing.T) {
	plan, err := newPlan(WithLengthsAdvisory())
	require.NoError(t, err)
	assert.True(t, plan.LengthsAdvisory)
	plan, err = newPlan()
	require.NoError(t, err)
	assert.False(t, plan.LengthsAdvisory)
}

package slotest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/verdict"
)

// WithOverload makes every step an overload step, judged by the gate with
// the limit given (0: the default).
func TestWithOverloadSetsTheGate(t *testing.T) {
	plan, err := newPlan(WithOverload(100 * time.Millisecond))
	require.NoError(t, err)
	require.NotNil(t, plan.Overload)
	assert.Equal(t, verdict.OverloadSettings{ShedP99: 100 * time.Millisecond}, *plan.Overload)
	plan, err = newPlan()
	require.NoError(t, err)
	assert.Nil(t, plan.Overload, "a plain gate is no overload gate")
}

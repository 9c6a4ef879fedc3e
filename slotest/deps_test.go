package slotest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/golist"
)

// A gate that runs the simulator or a URL links no container code: the
// vllm target's starter is package slotest/vllmcontainer's, imported by
// the tests that use it.
func TestAGateLinksNoContainerCode(t *testing.T) {
	if testing.Short() {
		t.Skip("go list loads every dependency")
	}
	deps := golist.List(t, "-deps", "github.com/llmslo/llmslo/slotest")
	require.Contains(t, deps, "github.com/llmslo/llmslo/load", "the list is slotest's")
	assert.Empty(t, golist.Linked(deps, "github.com/testcontainers/", "github.com/docker/", "github.com/moby/",
		"github.com/llmslo/llmslo/containers/"), "slotest links these")
}

// Without that package, the vllm target says what to import.
func TestTheVLLMTargetWithoutAStarterNamesThePackage(t *testing.T) {
	_, err := newPlan(WithTarget("vllm"), WithModel("m"), WithFixture("fixed:8:2"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "import github.com/llmslo/llmslo/slotest/vllmcontainer")
}

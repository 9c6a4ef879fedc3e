package tune

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/simtarget"
)

// simTarget is the simulator as a target, as the faces start it.
func simTarget(cfg vllmsim.Config) load.Target { return simtarget.Sim{Config: cfg, Virtual: true} }

// simArgsTarget is the simulator configured by vLLM serve flags, which a
// variant sweep and the tuning loop add to.
func simArgsTarget(t testing.TB, args ...string) load.Target {
	t.Helper()
	cfg, err := vllmsim.ParseServeArgs(args)
	require.NoError(t, err)
	return simtarget.Sim{Config: cfg, Args: args, Virtual: true}
}

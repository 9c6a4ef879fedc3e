package slotest

import (
	"sync"

	"github.com/llmslo/llmslo/load"
)

// The vllm target's container starter, registered by the package that
// links the container code (slotest/vllmcontainer), so that slotest itself
// links no testcontainers-go and no Docker client.
var (
	starterMu sync.Mutex
	starter   load.ContainerStarter
)

// RegisterContainerStarter makes s the starter of the vllm target for
// every test that sets none (WithContainerStarter). Package
// slotest/vllmcontainer calls it when imported; a test needs not.
func RegisterContainerStarter(s load.ContainerStarter) {
	starterMu.Lock()
	defer starterMu.Unlock()
	starter = s
}

func containerStarter() load.ContainerStarter {
	starterMu.Lock()
	defer starterMu.Unlock()
	return starter
}

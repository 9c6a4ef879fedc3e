//go:build !unix

package observe

import (
	"runtime/metrics"
	"time"
)

// processCPU is the Go runtime's own estimate of the CPU time the process
// used (all of GOMAXPROCS's time less idle), where the kernel's figure
// (getrusage) is not available.
func processCPU() time.Duration {
	s := []metrics.Sample{{Name: "/cpu/classes/total:cpu-seconds"}, {Name: "/cpu/classes/idle:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 || s[1].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return time.Duration((s[0].Value.Float64() - s[1].Value.Float64()) * float64(time.Second))
}

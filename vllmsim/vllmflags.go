package vllmsim

import "strings"

// simulatorOnly are the flags of ParseServeArgs that vLLM serve does not
// have: they shape the simulator itself (its profile, its timing, the
// faults it injects, how it starts). Every other flag it accepts is
// vLLM's, spelled as vLLM spells it.
var simulatorOnly = map[string]bool{
	"profile": true, "gpu": true, "step-time-scale": true,
	"frontend-overhead": true, "frontend-per-token": true, "no-frontend": true, "engine-v0": true,
	"output-overhead": true, "output-per-seq": true, "error-format": true, "startup-behavior": true,
	"drift": true, "step-jitter": true,
	"dev-mode": true, // vLLM reads VLLM_SERVER_DEV_MODE from its environment instead
}

// faultPrefix starts every fault-injection flag: all are the simulator's.
const faultPrefix = "fault-"

// SimulatorOnly reports whether a flag ("--profile" or "--profile=x") is
// one of the simulator's own, not vLLM serve's.
func SimulatorOnly(flag string) bool {
	if !strings.HasPrefix(flag, "--") {
		return false
	}
	name, _, _ := strings.Cut(flag[2:], "=")
	name = strings.ReplaceAll(name, "_", "-")
	return simulatorOnly[name] || strings.HasPrefix(name, faultPrefix)
}

// VLLMArgs splits serve arguments into those vLLM serve takes and the
// simulator's own (each with its value), so that a command line measured
// on the simulator can be printed as one to deploy.
func VLLMArgs(args []string) (vllm, simOnly []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !SimulatorOnly(a) {
			vllm = append(vllm, a)
			continue
		}
		simOnly = append(simOnly, a)
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if f, ok := serveFlags[strings.ReplaceAll(name, "_", "-")]; ok && !f.boolean && !hasValue && i+1 < len(args) {
			i++
			simOnly = append(simOnly, args[i])
		}
	}
	return vllm, simOnly
}

package slotest

import "strings"

// Environment variables that choose the server without touching the test:
// one test file gates the simulator on a laptop and a real server in CI.
// The API key of a URL target is read from LLMSLO_API_KEY, else
// OPENAI_API_KEY, and never printed.
const (
	EnvTarget    = "SLOTEST_TARGET"     // sim, vllm or a URL
	EnvVLLMImage = "SLOTEST_VLLM_IMAGE" // image for the vllm target (default vllm/vllm-openai:latest)
	EnvModel     = "SLOTEST_MODEL"      // model the vllm target serves
	defaultImage = "vllm/vllm-openai:latest"
)

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x = strings.TrimSpace(x); x != "" {
			return x
		}
	}
	return ""
}

// Package targets turns a face's target name (sim, vllm or a URL: the
// llmslo command's --target, slotest's SLOTEST_TARGET) into a load.Target,
// and reads the API key from the environment. Only the faces use it: the
// engine takes a Target value and reads no environment variable.
package targets

import (
	"fmt"
	"os"
	"strings"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/simtarget"
)

// Names of the targets that are not URLs.
const (
	Sim  = "sim"  // the simulator in the measuring process (the default)
	VLLM = "vllm" // a vLLM container started for the run
)

// Environment variables that hold a URL target's API key, in the order
// they are read.
const (
	EnvAPIKey    = "LLMSLO_API_KEY"
	EnvOpenAIKey = "OPENAI_API_KEY"
)

// Options are what a named target may need.
type Options struct {
	// Model is the model requests carry (empty: the first the server
	// lists); for the vllm target it is also the model served, and needed.
	Model string
	// APIKey is sent as a bearer token to a URL or container target.
	APIKey string
	// Sim and SimArgs configure the simulator: SimArgs are the vLLM serve
	// flags Sim was parsed from, when it was.
	Sim     vllmsim.Config
	SimArgs []string
	// Image, Starter and VLLMArgs start the vllm target's container.
	Image    string
	Starter  load.ContainerStarter
	VLLMArgs []string
}

// Parse returns the target a name chooses: "" or "sim", "vllm", or an
// http(s) URL. A name that is none of these is an error, never a silent
// fallback to the simulator.
func Parse(name string, o Options) (load.Target, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "" || name == Sim:
		return simtarget.Sim{Config: o.Sim, Args: o.SimArgs, Model: o.Model}, nil
	case name == VLLM:
		if strings.TrimSpace(o.Model) == "" {
			return nil, fmt.Errorf("the vllm target needs a model to serve")
		}
		return load.ContainerTarget{Starter: o.Starter, Image: o.Image, Model: o.Model, APIKey: o.APIKey, Args: o.VLLMArgs}, nil
	case IsURL(name):
		return load.URLTarget{URL: name, Model: o.Model, APIKey: o.APIKey}, nil
	}
	return nil, fmt.Errorf("unknown target %q: want sim, vllm or an http(s) URL", name)
}

// IsURL reports whether a target name is a URL.
func IsURL(name string) bool {
	name = strings.TrimSpace(name)
	return strings.HasPrefix(name, "http://") || strings.HasPrefix(name, "https://")
}

// APIKeyFromEnv is LLMSLO_API_KEY, else OPENAI_API_KEY, else empty.
func APIKeyFromEnv() string {
	for _, k := range []string{EnvAPIKey, EnvOpenAIKey} {
		if v := strings.TrimSpace(os.Getenv(k)); v != "" {
			return v
		}
	}
	return ""
}

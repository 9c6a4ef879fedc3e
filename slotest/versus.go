package slotest

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/vllmsim"
)

// Environment variables of a side-by-side gate (docs/versus.md).
const (
	EnvVersus          = "SLOTEST_VERSUS"            // the base server: sim, vllm or a URL
	EnvVersusVLLMImage = "SLOTEST_VERSUS_VLLM_IMAGE" // image of a vllm base (default: the target's)
	EnvVersusVLLMArgs  = "SLOTEST_VERSUS_VLLM_ARGS"  // a vllm base's serve flags, space-separated (overrides WithVersusVLLMArgs)
)

// WithVersus runs each step side by side with a base server (a URL, "sim"
// or "vllm"; SLOTEST_VERSUS overrides it): the same requests to both (at
// the same moments, or in turns: WithVersusMode), each side judged on its
// SLOs, and each gated
// percentile of the target compared with the base's, paired second by
// second. A ratio whose interval lies wholly beyond ×(1 + tolerance)
// fails the step (WithVersusTolerance; default load.DefaultVersusTolerance,
// 5%). A CI job that starts
// the PR's server and the base branch's on one machine compares them on
// the same minutes, where a recorded baseline meets another day's GPU.
func WithVersus(base string) Option { return func(c *config) { c.versus = base } }

// WithVersusSim configures a "sim" base server.
func WithVersusSim(cfg vllmsim.Config) Option { return func(c *config) { c.versusSim = cfg } }

// WithVersusVLLMArgs sets a "vllm" base server's vLLM serve flags, e.g.
// the base branch's --max-num-seqs (SLOTEST_VERSUS_VLLM_ARGS overrides
// them); its image is SLOTEST_VERSUS_VLLM_IMAGE.
func WithVersusVLLMArgs(args ...string) Option { return func(c *config) { c.versusArgs = args } }

// WithVersusMode chooses how the two servers share the load:
// load.VersusTogether (the default) sends the whole schedule to both at
// once (two GPUs, or two small servers on one); load.VersusAlternate
// moves it between them in blocks, ABBA, leaving each block's first
// warm-up out of both (two servers that cannot both be loaded at once).
func WithVersusMode(mode string) Option { return func(c *config) { c.VersusMode = mode } }

// WithVersusBlock sets an alternating run's longest measured block
// (default load.DefaultVersusBlock), whole seconds: the duration is cut
// into an even number of blocks of at most this.
func WithVersusBlock(block time.Duration) Option { return func(c *config) { c.VersusBlock = block } }

// WithVersusTolerance sets the slowdown allowed against the base server, a
// fraction (default load.DefaultVersusTolerance, 5%).
func WithVersusTolerance(tolerance float64) Option {
	return func(c *config) { c.VersusTolerance = tolerance }
}

// versusOf is the base server the config names, or nil.
func (c config) versusOf() (load.Target, error) {
	name := firstNonEmpty(os.Getenv(EnvVersus), c.versus)
	if name == "" {
		return nil, nil
	}
	t, err := c.named(name, c.versusSim, firstNonEmpty(os.Getenv(EnvVersusVLLMImage), os.Getenv(EnvVLLMImage)))
	if err != nil {
		return nil, fmt.Errorf("versus: %w", err)
	}
	args := c.versusArgs
	if env := strings.Fields(os.Getenv(EnvVersusVLLMArgs)); len(env) > 0 {
		args = env
	}
	if len(args) > 0 {
		ct, ok := t.(load.ContainerTarget)
		if !ok {
			return nil, fmt.Errorf("versus: vLLM serve flags (%s, WithVersusVLLMArgs) are for a vllm base, not %q", EnvVersusVLLMArgs, name)
		}
		ct.Args = append(ct.Args, args...)
		t = ct
	}
	return t, nil
}

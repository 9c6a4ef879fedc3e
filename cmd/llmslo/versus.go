package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/llmslo/llmslo/containers/vllm/serve"
	"github.com/llmslo/llmslo/internal/targets"
	"github.com/llmslo/llmslo/load"
)

// versusFlags run a step side by side with a base server (docs/versus.md).
type versusFlags struct {
	target, simArgs, image, vllmArgs, mode string
	tolerance                              float64
	block                                  time.Duration
}

func (v *versusFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&v.target, "versus", "", "run each step side by side with this base server, the same requests to both (see --versus-mode): sim, vllm (with --target vllm) or a URL; a gated percentile slower than the base's by more than --versus-tolerance fails")
	fs.StringVar(&v.simArgs, "versus-sim-args", "", "vLLM serve flags for --versus sim")
	fs.StringVar(&v.image, "versus-image", "", "the image of --versus vllm (default --target vllm's)")
	fs.StringVar(&v.vllmArgs, "versus-vllm-args", "", "vLLM serve flags of --versus vllm, after --vllm-args: a flag in both takes this one's value (its GPUs, cache and timeout are --target vllm's)")
	fs.StringVar(&v.mode, "versus-mode", load.VersusTogether, "how the two servers share the load: together (both get the whole schedule at once) or alternate (the load moves between them in blocks, ABBA, each block's first --warmup left out of both)")
	fs.DurationVar(&v.block, "versus-block", 0, "with --versus-mode alternate, the longest block's measured length, whole seconds: --duration is cut into an even number of blocks of at most this (default 10s)")
	fs.Float64Var(&v.tolerance, "versus-tolerance", load.DefaultVersusTolerance, "slowdown allowed against the base side, as a fraction")
}

// config turns the flags into c's base side, after c's own target is
// set; f holds the run's own flags.
func (v *versusFlags) config(c *load.Plan, f *runFlags, set map[string]bool, notes io.Writer) error {
	if v.target == "" {
		for _, name := range []string{"versus-sim-args", "versus-image", "versus-vllm-args", "versus-mode", "versus-block", "versus-tolerance"} {
			if set[name] {
				return fmt.Errorf("--%s needs --versus, the base server", name)
			}
		}
		return nil
	}
	name := strings.TrimSpace(v.target)
	if set["versus-sim-args"] && name != targets.Sim {
		return fmt.Errorf("--versus-sim-args is for --versus sim; --versus %s would ignore it", name)
	}
	for _, flag := range []string{"versus-image", "versus-vllm-args"} {
		if set[flag] && name != targets.VLLM {
			return fmt.Errorf("--%s is for --versus vllm; --versus %s would ignore it", flag, name)
		}
	}
	o, err := simOptions(f.model, "--versus-sim-args", v.simArgs)
	if err != nil {
		return err
	}
	if name == targets.VLLM {
		if strings.TrimSpace(f.target) != targets.VLLM {
			return errors.New("--versus vllm shares --target vllm's container flags: use --target vllm too")
		}
		if err := f.vllm.options(targets.VLLM, &o, notes); err != nil {
			return err
		}
		if v.image != "" {
			o.Image = v.image
		}
		o.VLLMArgs = strings.Fields(v.vllmArgs)
		if _, err := serve.New(serve.WithModel(o.Model), serve.WithVLLMArgs(o.VLLMArgs...)); err != nil {
			return fmt.Errorf("--versus-vllm-args: %w", err)
		}
	}
	t, err := targets.Parse(name, o)
	if err != nil {
		return fmt.Errorf("--versus: %w", err)
	}
	c.Versus, c.VersusMode, c.VersusTolerance, c.VersusBlock = t, v.mode, v.tolerance, v.block
	return nil
}

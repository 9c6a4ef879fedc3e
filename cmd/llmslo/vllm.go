package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/llmslo/llmslo/containers/vllm/dockerrun"
	"github.com/llmslo/llmslo/containers/vllm/serve"
	"github.com/llmslo/llmslo/internal/targets"
	"github.com/llmslo/llmslo/load"
)

const (
	// envVLLMImage is the command's own default for --image.
	envVLLMImage     = "LLMSLO_VLLM_IMAGE"
	defaultVLLMImage = "vllm/vllm-openai:latest"
)

// vllmFlags choose the container of --target vllm. The command starts it
// through the Docker API (containers/vllm/dockerrun), not testcontainers-go,
// which would link the testing package into the binary.
type vllmFlags struct {
	image, gpus, args, hfCache string
	startupTimeout             time.Duration
}

func (v *vllmFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&v.image, "image", "", "image for --target vllm: vllm/vllm-openai or any image that takes vLLM's serve flags (default $"+envVLLMImage+", else "+defaultVLLMImage+"); pulled only when the Docker engine lacks it")
	fs.StringVar(&v.gpus, "gpus", "", "GPUs for --target vllm: all, or a count (default none; a real vLLM needs them)")
	fs.StringVar(&v.args, "vllm-args", "", "more vLLM serve flags for --target vllm, e.g. '--max-num-seqs 64 --max-model-len 8192' (HF_TOKEN is passed from the environment, never printed)")
	fs.StringVar(&v.hfCache, "hf-cache", "", "host directory mounted as the --target vllm container's Hugging Face cache, so weights survive it")
	fs.DurationVar(&v.startupTimeout, "startup-timeout", serve.DefaultStartupTimeout, "how long --target vllm may take to answer GET /health with 200")
}

// set reports whether any of the flags was given.
func (v *vllmFlags) set() bool {
	return v.image != "" || v.gpus != "" || v.args != "" || v.hfCache != "" || v.startupTimeout != serve.DefaultStartupTimeout
}

// options puts the container starter and the image in o when the target
// is vllm, after checking the flags, so that a bad one fails before
// anything starts. progress, when not nil, is told that a container is
// starting.
func (v *vllmFlags) options(target string, o *targets.Options, progress io.Writer) error {
	if strings.TrimSpace(target) != targets.VLLM {
		if v.set() {
			return errors.New("--image, --gpus, --vllm-args, --hf-cache and --startup-timeout are for --target vllm")
		}
		return nil
	}
	if o.Model == "" {
		return errors.New("--target vllm needs --model: the model the container serves")
	}
	opts, err := v.serveOptions()
	if err != nil {
		return err
	}
	// The model and dev mode come with the request; checking them here
	// makes a flag's error a usage error.
	if _, err := serve.New(append([]serve.Option{serve.WithModel(o.Model)}, opts...)...); err != nil {
		return err
	}
	o.Image = v.image
	if o.Image == "" {
		o.Image = os.Getenv(envVLLMImage)
	}
	if o.Image == "" {
		o.Image = defaultVLLMImage
	}
	o.Starter = dockerStarter{opts: opts, progress: progress, timeout: v.startupTimeout}
	return nil
}

// serveOptions turns the flags into container settings.
func (v *vllmFlags) serveOptions() ([]serve.Option, error) {
	opts := []serve.Option{serve.WithStartupTimeout(v.startupTimeout)}
	switch g := strings.TrimSpace(v.gpus); g {
	case "", "none", "0":
	case "all":
		opts = append(opts, serve.WithGPUs(serve.AllGPUs))
	default:
		n, err := strconv.Atoi(g)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--gpus %q: want all, none or a count", v.gpus)
		}
		opts = append(opts, serve.WithGPUs(n))
	}
	if args := strings.Fields(v.args); len(args) > 0 {
		opts = append(opts, wrapErr("--vllm-args", serve.WithVLLMArgs(args...)))
	}
	if v.hfCache != "" {
		opts = append(opts, wrapErr("--hf-cache", serve.WithHFCache(v.hfCache)))
	}
	return opts, nil
}

// wrapErr names the flag in an option's error.
func wrapErr(flagName string, o serve.Option) serve.Option {
	return func(s *serve.Settings) error {
		if err := o(s); err != nil {
			return fmt.Errorf("%s: %w", flagName, err)
		}
		return nil
	}
}

// dockerStarter is the command's load.ContainerStarter.
type dockerStarter struct {
	opts     []serve.Option
	progress io.Writer
	timeout  time.Duration
}

func (d dockerStarter) StartContainer(ctx context.Context, req load.ContainerRequest) (load.StartedContainer, error) {
	opts := append([]serve.Option{serve.WithModel(req.Model)}, d.opts...)
	if len(req.Args) > 0 {
		opts = append(opts, serve.WithVLLMArgs(req.Args...))
	}
	if req.DevMode {
		opts = append(opts, serve.WithDevMode())
	}
	if d.progress != nil {
		fmt.Fprintf(d.progress, "starting %s serving %s (pulled first if the Docker engine lacks it); waiting up to %v for GET /health\n",
			req.Image, req.Model, d.timeout)
	}
	c, err := dockerrun.Run(ctx, req.Image, opts...)
	if err != nil {
		return load.StartedContainer{}, err
	}
	return load.StartedContainer{URL: c.BaseURL(), Model: c.Model(), Stop: c.Close}, nil
}

package load

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/llmslo/llmslo/load/serveflags"
)

// ContainerTarget is a vLLM-compatible server started in a container for
// the run, serving Model from Image, by Starter: each face sets its own
// (slotest one built on testcontainers-go, slotest/vllmcontainer; the llmslo
// command one that calls the Docker API directly, containers/vllm/dockerrun),
// so that package load links neither and the command does not link the
// testing package.
type ContainerTarget struct {
	Starter ContainerStarter
	Image   string // an image that takes vLLM's serve flags
	Model   string // the model to serve
	APIKey  string // sent as a bearer token; never shown
	// Args are vLLM serve flags, after the starter's own.
	Args []string
}

// Start starts the container (with VLLM_SERVER_DEV_MODE=1, so that the
// prefix cache can be reset before each step) and waits until it is healthy.
func (t ContainerTarget) Start(ctx context.Context) (*Endpoint, error) {
	switch {
	case strings.TrimSpace(t.Model) == "":
		return nil, errors.New("the vllm target needs a model to serve")
	case t.Starter == nil:
		return nil, errors.New("the vllm target has no container starter (slotest and the llmslo command set one)")
	}
	c, err := t.Starter.StartContainer(ctx, ContainerRequest{Image: t.Image, Model: t.Model, DevMode: true, Args: t.Args})
	if err != nil {
		return nil, fmt.Errorf("start vllm target from %s: %w", t.Image, err)
	}
	ep := &Endpoint{Kind: KindVLLM, URL: c.URL, Model: firstNonEmpty(c.Model, t.Model), APIKey: t.APIKey, Stop: c.Stop}
	// vLLM's /metrics does not say max_num_seqs; the flags it was started
	// with do, when they set it.
	ep.MaxNumSeqs, _ = serveflags.Int(t.Args, "--max-num-seqs")
	return ep, nil
}

// WithFlags is the same container with more vLLM serve flags.
func (t ContainerTarget) WithFlags(flags []string) (Target, error) {
	t.Args = append(slices.Clone(t.Args), flags...)
	return t, nil
}

// ContainerStarter starts a vLLM-compatible server in a container and
// waits until it is healthy.
type ContainerStarter interface {
	StartContainer(ctx context.Context, req ContainerRequest) (StartedContainer, error)
}

// ContainerStarterFunc is a function that is a ContainerStarter.
type ContainerStarterFunc func(ctx context.Context, req ContainerRequest) (StartedContainer, error)

// StartContainer calls f.
func (f ContainerStarterFunc) StartContainer(ctx context.Context, req ContainerRequest) (StartedContainer, error) {
	return f(ctx, req)
}

// ContainerRequest is what a ContainerTarget asks of its starter.
type ContainerRequest struct {
	Image string // an image that takes vLLM's serve flags
	Model string // the model to serve
	// DevMode sets VLLM_SERVER_DEV_MODE=1, so that the prefix cache can be
	// reset before each step.
	DevMode bool
	// Args are vLLM serve flags for this start, after the starter's own.
	Args []string
}

// StartedContainer is a healthy server in a container.
type StartedContainer struct {
	URL   string       // base URL, without /v1
	Model string       // the name requests carry
	Stop  func() error // stops and removes the container
}

// ServeArgs are the vLLM serve flags the container starts with, after its
// starter's own.
func (t ContainerTarget) ServeArgs() []string { return slices.Clone(t.Args) }

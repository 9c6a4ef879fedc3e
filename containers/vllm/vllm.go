package vllm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/llmslo/llmslo/containers/vllm/serve"
)

const (
	healthPollInterval = 250 * time.Millisecond
	cleanupTimeout     = 30 * time.Second
)

// Container is a running vLLM server.
type Container struct {
	*testcontainers.DockerContainer
	model string
}

// Model returns the name clients put in a request's "model" field: the first
// served model name if one was set, the model otherwise.
func (c *Container) Model() string { return c.model }

// BaseURL returns the server's address as seen from the host, such as
// "http://127.0.0.1:32768"; the OpenAI API lives under BaseURL + "/v1".
func (c *Container) BaseURL(ctx context.Context) (string, error) {
	host, err := publishedHost(ctx, c.Host, engineSharesNetwork)
	if err != nil {
		return "", fmt.Errorf("vllm: container host: %w", err)
	}
	port, err := c.MappedPort(ctx, ContainerPort)
	if err != nil {
		return "", fmt.Errorf("vllm: mapped port: %w", err)
	}
	return "http://" + net.JoinHostPort(host, port.Port()), nil
}

// Run starts img with the given options and waits until GET /health answers
// 200. Options of this package are applied first, in order, then generic
// testcontainers options (such as testcontainers.WithLogger), which may
// override what the former set.
//
// When the container cannot be started or never becomes healthy, Run removes
// it and returns a *StartError carrying its last log lines. Asking for GPUs
// where the engine has no NVIDIA runtime fails with ErrNoGPU before anything
// is created.
func Run(ctx context.Context, img string, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	if img == "" {
		return nil, errors.New("vllm: no image given")
	}
	s := serve.Defaults()
	var generic []testcontainers.ContainerCustomizer
	for _, opt := range opts {
		if o, ok := opt.(Option); ok {
			if err := o(&s); err != nil {
				return nil, fmt.Errorf("vllm: %w", err)
			}
			continue
		}
		generic = append(generic, opt)
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("vllm: %w", err)
	}

	req := request(&s, img, os.LookupEnv)
	for _, opt := range generic {
		if err := opt.Customize(&req); err != nil {
			return nil, serve.NewRedactor(req.Env, req.Cmd).Error(fmt.Errorf("vllm: customize: %w", err))
		}
	}
	r := serve.NewRedactor(req.Env, req.Cmd)
	next := req.Logger
	if next == nil {
		next = tclog.Default()
	}
	req.Logger = redactingLogger{next: next, r: r}

	if s.GPUs() != 0 {
		if err := checkGPURuntime(ctx); err != nil {
			return nil, r.Error(err)
		}
	}

	ctr, err := testcontainers.GenericContainer(ctx, req)
	if err != nil {
		return nil, startFailure(img, ctr, err, s.LogTail(), r)
	}
	dc, ok := ctr.(*testcontainers.DockerContainer)
	if !ok {
		_ = testcontainers.TerminateContainer(ctr)
		return nil, fmt.Errorf("vllm: unexpected container type %T", ctr)
	}
	return &Container{DockerContainer: dc, model: s.ServedModel()}, nil
}

// request builds the container request from the settings.
func request(s *serve.Settings, img string, lookupEnv func(string) (string, bool)) testcontainers.GenericContainerRequest {
	return testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image:        img,
			ExposedPorts: []string{ContainerPort},
			Cmd:          s.Command(),
			Env:          s.Environment(lookupEnv),
			Labels:       s.Labels(),
			WaitingFor: onPublishedHost{inner: wait.ForHTTP(serve.HealthPath).
				WithPort(ContainerPort).
				WithStartupTimeout(s.StartupTimeout()).
				WithPollInterval(healthPollInterval)},
			HostConfigModifier: s.ApplyHostConfig,
		},
		Started: true,
	}
}

// startFailure removes a container that did not become healthy and builds
// the error, with the container's last log lines, all redacted.
func startFailure(img string, ctr testcontainers.Container, cause error, tail int, r *serve.Redactor) error {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	se := &StartError{Image: img, Cause: r.Error(cause)}
	// GenericContainer may return a typed nil inside the interface.
	if dc, _ := ctr.(*testcontainers.DockerContainer); dc != nil && dc.ID != "" {
		lines, err := lastLogLines(ctx, dc, tail)
		if err != nil {
			se.LogsErr = r.Error(err)
		}
		for i, l := range lines {
			lines[i] = r.String(l)
		}
		se.Logs = lines
	}
	if err := testcontainers.TerminateContainer(ctr); err != nil {
		se.CleanupErr = r.Error(err)
	}
	return se
}

package dockerrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/llmslo/llmslo/containers/vllm/serve"
)

const (
	// stopTimeout is what Close gives the server to exit on SIGTERM before
	// the engine kills it.
	stopTimeout = 10 * time.Second
	// cleanupTimeout bounds removing a container and reading its logs,
	// which happen after the caller's context may have ended.
	cleanupTimeout = 30 * time.Second
)

// loopback is where the published port is bound and reached: the server
// is for this machine only.
var loopback = netip.MustParseAddr("127.0.0.1")

// Container is a running server. Close stops and removes it.
type Container struct {
	id    string
	url   string
	model string
	cli   *client.Client
	r     *serve.Redactor

	once     sync.Once
	closeErr error
}

// ID is the container's ID.
func (c *Container) ID() string { return c.id }

// BaseURL is the server's address, such as "http://127.0.0.1:32768"; the
// OpenAI API lives under BaseURL + "/v1".
func (c *Container) BaseURL() string { return c.url }

// Model is the name clients put in a request's "model" field: the first
// served model name if one was set, the model otherwise.
func (c *Container) Model() string { return c.model }

// Close stops the container (SIGTERM, then SIGKILL after 10s) and removes
// it. Later calls return the first call's result.
func (c *Container) Close() error {
	c.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		c.closeErr = c.r.Error(remove(ctx, c.cli, c.id, true))
		_ = c.cli.Close()
	})
	return c.closeErr
}

// Run starts img with the given options, waits until GET /health answers
// 200, and returns the running container.
//
// When the container exits or never becomes healthy, Run removes it and
// returns a *serve.StartError carrying its last log lines. Asking for GPUs
// where the engine has no NVIDIA runtime fails with serve.ErrNoGPU before
// anything is created or pulled.
func Run(ctx context.Context, img string, opts ...serve.Option) (*Container, error) {
	if img == "" {
		return nil, errors.New("vllm: no image given")
	}
	s, err := serve.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("vllm: %w", err)
	}
	cmd, env := s.Command(), s.Environment(os.LookupEnv)
	r := serve.NewRedactor(env, cmd)
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return nil, r.Error(fmt.Errorf("vllm: docker client: %w", err))
	}
	c, err := start(ctx, cli, img, &s, cmd, env, r)
	if err != nil {
		_ = cli.Close()
		return nil, r.Error(err)
	}
	return c, nil
}

// start does Run's work with an open client.
func start(ctx context.Context, cli *client.Client, img string, s *serve.Settings, cmd []string, env map[string]string, r *serve.Redactor) (*Container, error) {
	if s.GPUs() != 0 {
		if err := serve.CheckGPURuntime(ctx, cli); err != nil {
			return nil, err
		}
	}
	if err := ensureImage(ctx, cli, img); err != nil {
		return nil, err
	}
	port := network.MustParsePort(serve.ContainerPort)
	hc := &container.HostConfig{
		PortBindings: network.PortMap{port: {{HostIP: loopback}}}, // no HostPort: the engine picks a free one
	}
	s.ApplyHostConfig(hc)
	created, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config: &container.Config{
			Image:        img,
			Cmd:          cmd,
			Env:          envList(env),
			Labels:       s.Labels(),
			ExposedPorts: network.PortSet{port: {}},
		},
		HostConfig: hc,
	})
	if err != nil {
		return nil, fmt.Errorf("vllm: create a container from %s: %w", img, err)
	}
	fail := func(cause error) error {
		return startFailure(ctx, cli, created.ID, img, cause, s.LogTail(), r)
	}
	if _, err := cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		return nil, fail(fmt.Errorf("start: %w", err))
	}
	hostPort, err := publishedPort(ctx, cli, created.ID, port)
	if err != nil {
		return nil, fail(err)
	}
	base := "http://" + net.JoinHostPort(loopback.String(), hostPort)
	if err := waitHealthy(ctx, base+serve.HealthPath, s.StartupTimeout(), exitedFunc(cli, created.ID)); err != nil {
		return nil, fail(err)
	}
	return &Container{id: created.ID, url: base, model: s.ServedModel(), cli: cli, r: r}, nil
}

// ensureImage pulls img when the engine does not have it.
func ensureImage(ctx context.Context, cli *client.Client, img string) error {
	_, err := cli.ImageInspect(ctx, img)
	if err == nil {
		return nil
	}
	if !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("vllm: inspect image %s: %w", img, err)
	}
	resp, err := cli.ImagePull(ctx, img, client.ImagePullOptions{})
	if err == nil {
		err = resp.Wait(ctx)
	}
	if err != nil {
		return fmt.Errorf("vllm: image %s is not on the Docker engine, and pulling it failed: %w", img, err)
	}
	return nil
}

// envList is env as the engine takes it, sorted so that a container's
// environment does not depend on map order.
func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// publishedPort reads back the host port the engine bound to port.
func publishedPort(ctx context.Context, cli *client.Client, id string, port network.Port) (string, error) {
	res, err := cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		return "", fmt.Errorf("inspect: %w", err)
	}
	if ns := res.Container.NetworkSettings; ns != nil {
		for _, b := range ns.Ports[port] {
			if b.HostPort != "" {
				return b.HostPort, nil
			}
		}
	}
	if st := res.Container.State; st != nil && !st.Running {
		return "", fmt.Errorf("container exited with code %d before its port was published", st.ExitCode)
	}
	return "", fmt.Errorf("the engine published no host port for %s", port)
}

// exitedFunc reports whether the container has stopped, and its exit code.
func exitedFunc(cli *client.Client, id string) func(context.Context) (bool, int, error) {
	return func(ctx context.Context) (bool, int, error) {
		res, err := cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
		if err != nil {
			return false, 0, err
		}
		st := res.Container.State
		if st == nil {
			return false, 0, nil
		}
		switch st.Status {
		case container.StateExited, container.StateDead:
			return true, st.ExitCode, nil
		}
		return false, 0, nil
	}
}

// startFailure removes a container that did not become healthy and builds
// the error, with the container's last log lines, all redacted.
func startFailure(ctx context.Context, cli *client.Client, id, img string, cause error, tail int, r *serve.Redactor) error {
	// The caller's context may be what ended the start: clean up anyway.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	se := &serve.StartError{Image: img, Cause: r.Error(cause)}
	lines, err := lastLogLines(ctx, cli, id, tail)
	if err != nil {
		se.LogsErr = r.Error(err)
	}
	for _, l := range lines {
		se.Logs = append(se.Logs, r.String(l))
	}
	se.CleanupErr = r.Error(remove(ctx, cli, id, false))
	return se
}

// lastLogLines reads the container's last n lines of output, stdout and
// stderr together.
func lastLogLines(ctx context.Context, cli *client.Client, id string, n int) ([]string, error) {
	if n == 0 {
		return nil, nil
	}
	rc, err := cli.ContainerLogs(ctx, id, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Tail: strconv.Itoa(n)})
	if err != nil {
		return nil, fmt.Errorf("container logs: %w", err)
	}
	defer rc.Close()
	// Without a TTY the engine multiplexes the two streams.
	var out bytes.Buffer
	if _, err := stdcopy.StdCopy(&out, &out, rc); err != nil {
		return nil, fmt.Errorf("container logs: %w", err)
	}
	return serve.TailLines(&out, n)
}

// remove removes the container, stopping it first (gently when stop is
// set) if it runs.
func remove(ctx context.Context, cli *client.Client, id string, stop bool) error {
	if stop {
		secs := int(stopTimeout / time.Second)
		// A failed stop is of no interest when the removal that follows,
		// forced, succeeds.
		_, _ = cli.ContainerStop(ctx, id, client.ContainerStopOptions{Timeout: &secs})
	}
	if _, err := cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("vllm: remove container %.12s: %w", id, err)
	}
	return nil
}

package vllm

import (
	"context"
	"fmt"
	"io"

	"github.com/llmslo/llmslo/containers/vllm/serve"
)

// StartError reports a container that could not be started or never became
// healthy, with its last log lines, all redacted (see serve.StartError).
type StartError = serve.StartError

// logSource is the part of a container lastLogLines needs.
type logSource interface {
	Logs(ctx context.Context) (io.ReadCloser, error)
}

// lastLogLines reads a container's logs and keeps the last n lines.
func lastLogLines(ctx context.Context, src logSource, n int) ([]string, error) {
	if n == 0 {
		return nil, nil
	}
	rc, err := src.Logs(ctx)
	if err != nil {
		return nil, fmt.Errorf("container logs: %w", err)
	}
	defer rc.Close()
	return serve.TailLines(rc, n)
}

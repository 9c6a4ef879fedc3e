package serve

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// StartError reports a container that could not be started or never became
// healthy. The container has been removed (unless CleanupErr says otherwise).
// Every field is redacted: no secret handed to the container appears in it.
type StartError struct {
	Image      string   // the image that was started
	Logs       []string // the container's last log lines, oldest first
	LogsErr    error    // why the logs could not be read, if they could not
	CleanupErr error    // why the container could not be removed, if it could not
	Cause      error    // why the start failed
}

func (e *StartError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "vllm: container from image %q failed to start or to become healthy: %v", e.Image, e.Cause)
	if e.CleanupErr != nil {
		fmt.Fprintf(&b, "\nremoving the container failed, it may still exist: %v", e.CleanupErr)
	}
	if e.LogsErr != nil {
		fmt.Fprintf(&b, "\nreading the container's logs failed: %v", e.LogsErr)
	}
	if len(e.Logs) > 0 {
		fmt.Fprintf(&b, "\ncontainer logs (last %d lines):", len(e.Logs))
		for _, l := range e.Logs {
			b.WriteString("\n  ")
			b.WriteString(l)
		}
	} else if e.LogsErr == nil {
		b.WriteString("\ncontainer logs: (none)")
	}
	return b.String()
}

// Unwrap returns the cause, so that errors.Is(err, context.DeadlineExceeded)
// and the like work.
func (e *StartError) Unwrap() error { return e.Cause }

// TailLines returns the last n lines of r, without their line endings.
// Lines of any length are kept whole.
func TailLines(r io.Reader, n int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	ring := make([]string, 0, n)
	start := 0
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			line = strings.TrimRight(line, "\r\n")
			if len(ring) < n {
				ring = append(ring, line)
			} else {
				ring[start] = line
				start = (start + 1) % n
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return rotate(ring, start), err
		}
	}
	return rotate(ring, start), nil
}

func rotate(ring []string, start int) []string {
	out := make([]string, 0, len(ring))
	out = append(out, ring[start:]...)
	return append(out, ring[:start]...)
}

package vllm

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/containers/vllm/serve"
)

type recordingLogger struct{ lines []string }

func (l *recordingLogger) Printf(format string, v ...any) {
	l.lines = append(l.lines, fmt.Sprintf(format, v...))
}

func TestRedactingLogger(t *testing.T) {
	rec := &recordingLogger{}
	l := redactingLogger{next: rec, r: serve.NewRedactor(map[string]string{"HF_TOKEN": "hf_fake_123"}, nil)}
	l.Printf("container logs (%s):\n%s", "exited", "HF_TOKEN=hf_fake_123 100%")
	require.Len(t, rec.lines, 1)
	assert.Equal(t, "container logs (exited):\nHF_TOKEN=[REDACTED] 100%", rec.lines[0])
}

func TestLastLogLines(t *testing.T) {
	got, err := lastLogLines(context.Background(), stringLogs("1\n2\n3\n"), 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"2", "3"}, got)

	got, err = lastLogLines(context.Background(), stringLogs("1\n"), 0)
	require.NoError(t, err)
	assert.Empty(t, got)
}

package vllm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"

	"github.com/llmslo/llmslo/internal/dockergate"
)

const fakeImageTag = "llmslo/vllm-fake:test"

var (
	fakeImageOnce  sync.Once
	fakeImageErr   error
	fakeImageBuilt bool
)

// simImage builds the simulator's image from this checkout, once per run.
func simImage(t *testing.T) string { return dockergate.SimImage(t, SimImage, BuildSimImage) }

// fakeImage builds the testdata/fakevllm fixture's image, once per run.
func fakeImage(t *testing.T) string {
	t.Helper()
	dockergate.Require(t)
	fakeImageOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		bin := filepath.Join(t.TempDir(), "fakevllm")
		if fakeImageErr = goBuildStatic(ctx, ".", "./testdata/fakevllm", bin); fakeImageErr != nil {
			return
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			fakeImageErr = err
			return
		}
		dockerfile := "FROM scratch\nCOPY fakevllm /fakevllm\nEXPOSE 8000\nENTRYPOINT [\"/fakevllm\"]\n"
		fakeImageErr = buildImage(ctx, fakeImageTag, "Dockerfile", []imageFile{
			{Name: "Dockerfile", Data: []byte(dockerfile), Mode: 0o644},
			{Name: "fakevllm", Data: data, Mode: 0o755},
		}, nil)
		fakeImageBuilt = fakeImageErr == nil
	})
	require.NoError(t, fakeImageErr)
	return fakeImageTag
}

// recordingLog collects testcontainers' log lines.
type recordingLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *recordingLog) Printf(format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, v...))
}

func (l *recordingLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func terminate(t *testing.T, ctr *Container) {
	t.Helper()
	assert.NoError(t, testcontainers.TerminateContainer(ctr))
}

// Two tags built from one checkout are two images, each labelled with its
// tag: asking for one tag's containers (ancestor=TAG) never lists the
// other's, so packages testing at once cannot see each other's containers.
func TestSimImagesOfTwoTagsAreDistinct(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	a := simImage(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const other = "llmslo/vllm-sim:tag-test"
	b, err := BuildSimImage(ctx, root, other, nil)
	require.NoError(t, err)
	cli, err := client.New(client.FromEnv)
	require.NoError(t, err)
	defer func() {
		_, _ = cli.ImageRemove(context.Background(), other, client.ImageRemoveOptions{})
		cli.Close()
	}()
	ia, err := cli.ImageInspect(ctx, a)
	require.NoError(t, err)
	ib, err := cli.ImageInspect(ctx, b)
	require.NoError(t, err)
	assert.NotEqual(t, ia.ID, ib.ID)
	assert.Equal(t, a, ia.Config.Labels[TagLabel])
	assert.Equal(t, other, ib.Config.Labels[TagLabel])
}

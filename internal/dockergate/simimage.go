package dockergate

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BuildFunc builds the simulator's image from the checkout at repoRoot
// under tag: vllm.BuildSimImage, passed in because that package's own
// tests use this one.
type BuildFunc func(ctx context.Context, repoRoot, tag string, buildLog io.Writer) (string, error)

// built holds one build per tag and test binary.
var built sync.Map // tag -> *imageBuild

type imageBuild struct {
	once sync.Once
	img  string
	err  error
}

// SimImage builds the simulator's image from this checkout (FROM scratch:
// no registry) under tag, once per test binary, and returns it; it skips or
// fails t as Require does when no engine answers. Each package passes a
// tag of its own, so that rebuilding it never untags an image another
// package's tests are running.
func SimImage(t testing.TB, tag string, build BuildFunc) string {
	t.Helper()
	Require(t)
	v, _ := built.LoadOrStore(tag, &imageBuild{})
	b := v.(*imageBuild)
	b.once.Do(func() {
		root, err := repoRoot()
		if err != nil {
			b.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		b.img, b.err = build(ctx, root, tag, nil)
	})
	require.NoError(t, b.err)
	return b.img
}

// repoRoot is the module's root: the nearest directory above the test's
// own that holds go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("dockergate: no go.mod above the test's directory")
		}
		dir = parent
	}
}

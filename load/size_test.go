package load

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxPackageLines bounds any package's non-test code: past it, a package
// holds more than one concern, and one of them wants a package of its own.
const maxPackageLines = 3000

// No package of the module (e2e/ollama, a module of its own, apart) holds
// more than maxPackageLines lines of non-test code.
func TestNoPackageOutgrowsOneConcern(t *testing.T) {
	lines := map[string]int{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "e2e") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines[filepath.Dir(path)] += strings.Count(string(b), "\n")
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, lines[filepath.Join("..", "load")], 1000, "the walk counted package load")
	for dir, n := range lines {
		assert.LessOrEqual(t, n, maxPackageLines, "%s has %d lines of non-test code", dir, n)
	}
}

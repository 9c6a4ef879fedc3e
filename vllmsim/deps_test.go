package vllmsim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/golist"
)

// The server's parts below it (wire, tokenizer, metrics, drive, engine)
// link nothing above them: not the server itself, not the measuring
// engine, a face or the command. simtarget is the one subpackage above the
// server: it makes the server a target of package load.
func TestSubpackagesLinkNothingAboveThem(t *testing.T) {
	if testing.Short() {
		t.Skip("go list loads every dependency")
	}
	const mod = "github.com/llmslo/llmslo/"
	var below []string
	for _, pkg := range golist.List(t, "./...") {
		if pkg != mod+"vllmsim" && pkg != mod+"vllmsim/simtarget" {
			below = append(below, pkg)
		}
	}
	for _, want := range []string{"wire", "tokenizer", "metrics", "drive", "engine"} {
		require.Contains(t, below, mod+"vllmsim/"+want)
	}
	for _, pkg := range below {
		deps := golist.List(t, "-deps", pkg)
		above := golist.Linked(deps, mod+"load", mod+"slotest", mod+"cmd", mod+"vllmsim/simtarget")
		for _, d := range deps {
			if d == mod+"vllmsim" {
				above = append(above, d)
			}
		}
		assert.Empty(t, above, "%s links these", pkg)
	}
}

// maxRootLines bounds the server package's own code, tests aside: a
// concern that grows it past this goes in a subpackage of its own.
const maxRootLines = 3000

func TestTheServerPackageStaysSmall(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		lines += strings.Count(string(b), "\n")
	}
	require.Positive(t, lines)
	assert.LessOrEqual(t, lines, maxRootLines, "package vllmsim has %d lines of non-test code; move a concern into a subpackage", lines)
}

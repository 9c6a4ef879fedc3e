package load

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/golist"
)

// The engine is package load and its subpackages, less load/render, which
// only the faces import. It must link no simulator (targets come from the
// faces), no renderer (judging a step links no HTML template or chart),
// and nothing of testing (the command is built on it).
func TestEngineLinksNoSimulatorNoRendererNoTesting(t *testing.T) {
	if testing.Short() {
		t.Skip("go list loads every dependency")
	}
	var engine []string
	for _, pkg := range golist.List(t, "./...") {
		if !strings.HasSuffix(pkg, "/load/render") {
			engine = append(engine, pkg)
		}
	}
	require.Contains(t, engine, "github.com/llmslo/llmslo/load/verdict")
	banned := []string{"github.com/llmslo/llmslo/vllmsim", "github.com/llmslo/llmslo/containers",
		"github.com/llmslo/llmslo/load/render", "html/template", "gonum.org/", "testing",
		"github.com/stretchr/testify", "github.com/testcontainers/"}
	for _, d := range golist.List(t, append([]string{"-deps"}, engine...)...) {
		for _, b := range banned {
			assert.False(t, golist.Links(d, b), "the engine links %s", d)
		}
	}
}

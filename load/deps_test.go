package load

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The engine is package load and its subpackages, less load/render, which
// only the faces import. It must link no simulator (targets come from the
// faces), no renderer (judging a step links no HTML template or chart),
// and nothing of testing (the command is built on it).
func TestEngineLinksNoSimulatorNoRendererNoTesting(t *testing.T) {
	if testing.Short() {
		t.Skip("go list loads every dependency")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goBin, "list", "./...").CombinedOutput()
	require.NoError(t, err, "%s", out)
	var engine []string
	for _, pkg := range strings.Fields(string(out)) {
		if !strings.HasSuffix(pkg, "/load/render") {
			engine = append(engine, pkg)
		}
	}
	require.Contains(t, engine, "github.com/llmslo/llmslo/load/verdict")
	out, err = exec.Command(goBin, append([]string{"list", "-deps"}, engine...)...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, d := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/llmslo/llmslo/vllmsim", "github.com/llmslo/llmslo/containers",
			"github.com/llmslo/llmslo/load/render", "html/template", "gonum.org/", "testing", "github.com/stretchr/testify",
			"github.com/testcontainers/"} {
			p := strings.TrimSuffix(banned, "/")
			assert.False(t, d == p || strings.HasPrefix(d, p+"/"), "the engine links %s", d)
		}
	}
}

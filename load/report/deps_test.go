package report

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The schema is plain data: judging a step (verdict) or recording one
// (observe) must not link the renderers' HTML templates and charts, which
// live in package render.
func TestEngineLinksNoRenderer(t *testing.T) {
	if testing.Short() {
		t.Skip("go list loads every dependency")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, pkg := range []string{
		"github.com/llmslo/llmslo/load/report",
		"github.com/llmslo/llmslo/load/verdict",
		"github.com/llmslo/llmslo/load/observe",
	} {
		out, err := exec.Command(goBin, "list", "-deps", pkg).CombinedOutput()
		require.NoError(t, err, "%s", out)
		deps := strings.Fields(string(out))
		require.Contains(t, deps, pkg, "the list is the package's")
		for _, d := range deps {
			assert.NotEqual(t, "html/template", d, "%s links html/template", pkg)
			assert.False(t, strings.HasPrefix(d, "gonum.org/"), "%s links %s", pkg, d)
			assert.NotEqual(t, "github.com/llmslo/llmslo/load/render", d, "%s links the renderers", pkg)
		}
	}
}

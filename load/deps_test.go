package load

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/golist"
)

// The measuring code is package load and its subpackages, less load/render, which
// only the faces import. It must link no simulator (targets come from the
// faces), no renderer (judging a step links no HTML template or chart),
// and nothing of testing (the command is built on it).
func TestLoadLinksNoSimulatorNoRendererNoTesting(t *testing.T) {
	if testing.Short() {
		t.Skip("go list loads every dependency")
	}
	var measuring []string
	for _, pkg := range golist.List(t, "./...") {
		if !strings.HasSuffix(pkg, "/load/render") {
			measuring = append(measuring, pkg)
		}
	}
	require.Contains(t, measuring, "github.com/llmslo/llmslo/load/verdict")
	banned := []string{"github.com/llmslo/llmslo/vllmsim", "github.com/llmslo/llmslo/containers",
		"github.com/llmslo/llmslo/load/render", "html/template", "gonum.org/", "testing",
		"github.com/stretchr/testify", "github.com/testcontainers/"}
	assert.Empty(t, golist.Linked(golist.List(t, append([]string{"-deps"}, measuring...)...), banned...), "package load links these")
}

// layers is package load's order as docs/ARCHITECTURE.md draws it: each
// package imports, of these, only packages before it. A new package under
// fixtures or load, or one of internal that they import, must be placed
// here (and in the doc) to pass.
var layers = []string{
	"internal/nearest",
	"fixtures", "fixtures/formats",
	"load/stats", "load/serveflags", "load/vllmapi", "load/arrival",
	"load/workload", "load/client", "load/report",
	"load/dispatch", "load/observe", "load/verdict",
	"load/render", "load", "load/tune",
}

// The layering docs/ARCHITECTURE.md states holds in the code: read each
// package's imports from go list and check every one of the project's
// against the order.
func TestEachStageImportsOnlyStagesBeforeIt(t *testing.T) {
	if testing.Short() {
		t.Skip("go list loads every package")
	}
	const mod = "github.com/llmslo/llmslo/"
	rank := map[string]int{}
	for i, p := range layers {
		rank[p] = i
	}
	lines := golist.List(t, "-f", "{{.ImportPath}}:{{join .Imports \",\"}}", "../fixtures/...", "../load/...")
	require.NotEmpty(t, lines)
	for _, line := range lines {
		pkg, imports, _ := strings.Cut(line, ":")
		pkg = strings.TrimPrefix(pkg, mod)
		r, ok := rank[pkg]
		if !assert.True(t, ok, "%s has no place in the layers of docs/ARCHITECTURE.md", pkg) {
			continue
		}
		for _, imp := range strings.Split(imports, ",") {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			imp = strings.TrimPrefix(imp, mod)
			ir, known := rank[imp]
			assert.True(t, known && ir < r, "%s imports %s, which is not before it", pkg, imp)
		}
	}
}

// What a program imports to build a plan and measure it on the simulator
// (as ExampleMeasure does: load, fixtures/formats, load/verdict for the
// SLOs, vllmsim/simtarget) links no testing package, no testify, no
// testcontainers-go and no Docker client: slotest is for tests only.
func TestAProgramThatBuildsAPlanLinksNoTestCode(t *testing.T) {
	if testing.Short() {
		t.Skip("go list loads every dependency")
	}
	program := []string{"github.com/llmslo/llmslo/load", "github.com/llmslo/llmslo/fixtures/formats",
		"github.com/llmslo/llmslo/load/verdict", "github.com/llmslo/llmslo/vllmsim/simtarget"}
	deps := golist.List(t, append([]string{"-deps"}, program...)...)
	require.Contains(t, deps, "github.com/llmslo/llmslo/vllmsim", "the list is the program's")
	assert.Empty(t, golist.Linked(deps, "testing", "github.com/stretchr/testify", "github.com/testcontainers/",
		"github.com/docker/", "github.com/moby/", "github.com/llmslo/llmslo/slotest"), "a program building a plan links these")
}

// The imports docs/ARCHITECTURE.md lists for a package, in brackets after
// its line in the layer drawing ("load/verdict … (client, observe, report,
// stats, vllmapi)"), are all the project's packages it imports.
func TestTheLayerDrawingListsEachPackagesImports(t *testing.T) {
	if testing.Short() {
		t.Skip("go list loads every package")
	}
	const mod = "github.com/llmslo/llmslo/"
	doc, err := os.ReadFile("../docs/ARCHITECTURE.md")
	require.NoError(t, err)
	drawn := regexp.MustCompile(`(?m)^((?:fixtures|load)[\w/]*)\s{2,}.*\(([^()]*)\)(?:;[^()\n]*)?$`).FindAllStringSubmatch(string(doc), -1)
	require.NotEmpty(t, drawn, "the layer drawing")
	checked := 0
	for _, m := range drawn {
		pkg, list := m[1], m[2]
		list, _, _ = strings.Cut(list, ":") // "(fixtures, stats, vllmapi: it holds their types)"
		allowed := map[string]bool{}
		for _, name := range strings.Split(list, ",") {
			name = strings.TrimSpace(name)
			switch {
			case name == "fixtures", name == "load", strings.HasPrefix(name, "internal/"):
				allowed[name] = true
			default:
				allowed["load/"+name] = true
			}
		}
		imports := golist.List(t, "-f", `{{join .Imports "\n"}}`, "../"+pkg)
		for _, imp := range imports {
			if rel, ok := strings.CutPrefix(imp, mod); ok {
				assert.True(t, allowed[rel], "%s imports %s, which docs/ARCHITECTURE.md does not list for it", pkg, rel)
			}
		}
		checked++
	}
	assert.GreaterOrEqual(t, checked, 8, "the drawing lists the imports of most packages")
}

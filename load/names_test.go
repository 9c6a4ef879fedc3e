package load

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharedName is an exported name that several packages may declare: the
// packages allowed (by path in the module) and why it means one thing.
type sharedName struct {
	pkgs []string
	why  string
}

// sharedNames is every exported name the module declares in more than one
// package. A name outside it, or in a package it does not list, fails
// TestExportedNamesMeanOneThing: give the new thing a word of its own, or
// add it here with the reason it is the same thing.
var sharedNames = map[string]sharedName{
	"New":    {[]string{"containers/vllm/serve", "load/client", "load/workload", "vllmsim", "vllmsim/drive", "vllmsim/engine", "vllmsim/metrics"}, "each package's constructor of its main type"},
	"Config": {[]string{"load/client", "vllmsim", "vllmsim/drive", "vllmsim/engine"}, "the settings of the package's main type (client, server, loop, engine core)"},
	"Option": {[]string{"containers/vllm", "containers/vllm/serve", "internal/progress", "slotest"}, "a functional option of the package's main constructor"},
	"Options": {[]string{"internal/targets", "load/tune", "load/workload", "slotest/vllmcontainer"},
		"settings for the package's main constructor or function (tune.Tune); vllmcontainer.Options makes them a slotest option"},
	"Parse":     {[]string{"fixtures/formats", "internal/targets", "load/arrival"}, "each parses the thing its package is named for"},
	"Open":      {[]string{"fixtures/formats", "load"}, "opens the package's main thing: a fixture file, a measurement"},
	"Names":     {[]string{"fixtures/formats", "internal/vllmcaptures", "vllmsim/metrics"}, "lists the names the package knows"},
	"WithModel": {[]string{"containers/vllm/serve", "slotest"}, "sets the model served: by a container, by a gate's target"},
	"Run":       {[]string{"containers/vllm", "containers/vllm/dockerrun", "slotest"}, "runs the package's main thing: a container, a gate"},
	"Request":   {[]string{"load/workload", "vllmsim/metrics", "vllmsim/wire"}, "one request, as its layer holds it: to send, to time, on the wire"},
	"ChatMessage": {[]string{"vllmsim/tokenizer", "vllmsim/wire"},
		"one chat message; the tokenizer holds its own to import nothing of the wire"},
	"ModelCard":                   {[]string{"load/client", "vllmsim/wire"}, "a /v1/models entry, as the client reads it and the simulator writes it"},
	"Container":                   {[]string{"containers/vllm", "containers/vllm/dockerrun"}, "a started vLLM container, on testcontainers-go and on the Docker API"},
	"DefaultGPUMemoryUtilization": {[]string{"load/tune", "vllmsim"}, "vLLM's default; tune knows it without linking the simulator"},
	"DefaultMaxNumBatchedTokens":  {[]string{"load/tune", "vllmsim"}, "vLLM's default; tune knows it without linking the simulator"},
	"TrendBlocks":                 {[]string{"load/report", "load/vllmapi"}, "the queue-trend block count, which the report reads without linking vllmapi"},
	"Binding":                     {[]string{"load/report", "load/verdict"}, "the binding-limit finding, and the verdict code that finds it"},
	"Tune":                        {[]string{"load/tune", "load/report"}, "a tuning session, and the report of one"},
	"Server":                      {[]string{"load/tune", "vllmsim"}, "a vLLM server: what tuning knows of one, the simulated one"},
	"Sim":                         {[]string{"internal/targets", "vllmsim/simtarget"}, "the simulator target, by name and as a load.Target"},
	"SimImage":                    {[]string{"containers/vllm", "internal/dockergate"}, "the simulator's image tag, by default and as a test run chooses it"},
}

func TestExportedNamesMeanOneThing(t *testing.T) {
	decls := moduleDecls(t, "..")
	require.Contains(t, decls["StepReport"], "load/report", "the walk reads the module's packages")
	for name, kinds := range decls {
		if len(kinds) < 2 {
			continue
		}
		pkgs := slices.Sorted(maps.Keys(kinds))
		allowed, ok := sharedNames[name]
		if !assert.True(t, ok, "%s is declared in %v: one name, one meaning", name, pkgs) {
			continue
		}
		for _, p := range pkgs {
			assert.Contains(t, allowed.pkgs, p, "%s is declared in %s, which sharedNames does not list", name, p)
		}
		var typeKinds []string
		for _, k := range kinds {
			if k == "struct" || k == "interface" || k == "type" {
				typeKinds = append(typeKinds, k)
			}
		}
		slices.Sort(typeKinds)
		assert.Len(t, slices.Compact(typeKinds), min(len(typeKinds), 1), "type %s is of different kinds in %v", name, kinds)
	}
}

// moduleDecls maps each exported package-level name the module's
// non-main, non-test code declares to the kind of each declaration, by
// package path. A declaration that restates another package's name (an
// alias, a constant or variable set to it, a function that only calls it)
// declares nothing new and is left out.
func moduleDecls(t *testing.T, root string) map[string]map[string]string {
	decls := map[string]map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || hasGoMod(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil || f.Name.Name == "main" {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		for name, kind := range fileDecls(f) {
			if decls[name] == nil {
				decls[name] = map[string]string{}
			}
			decls[name][filepath.ToSlash(rel)] = kind
		}
		return err
	})
	require.NoError(t, err)
	return decls
}

func hasGoMod(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// fileDecls is the exported package-level names a file declares, with
// their kinds: struct, interface, type, func, const or var.
func fileDecls(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() && !forwards(d) {
				out[d.Name.Name] = "func"
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() && !(s.Assign.IsValid() && restates(s.Name.Name, s.Type)) {
						out[s.Name.Name] = typeKind(s.Type)
					}
				case *ast.ValueSpec:
					for i, n := range s.Names {
						if n.IsExported() && !(i < len(s.Values) && restates(n.Name, s.Values[i])) {
							out[n.Name] = d.Tok.String()
						}
					}
				}
			}
		}
	}
	return out
}

func typeKind(e ast.Expr) string {
	switch e.(type) {
	case *ast.StructType:
		return "struct"
	case *ast.InterfaceType:
		return "interface"
	}
	return "type"
}

// restates says e is pkg.name: another package's identifier of the same name.
func restates(name string, e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name
}

// forwards says a function only returns another package's function of
// the same name, called (and perhaps converted to its own type).
func forwards(d *ast.FuncDecl) bool {
	if d.Body == nil || len(d.Body.List) != 1 {
		return false
	}
	ret, ok := d.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	for ok && !restates(d.Name.Name, call.Fun) && len(call.Args) == 1 {
		call, ok = call.Args[0].(*ast.CallExpr)
	}
	return ok && restates(d.Name.Name, call.Fun)
}

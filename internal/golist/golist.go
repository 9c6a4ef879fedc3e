// Package golist asks the go command what packages link, for the tests that
// keep a package's imports honest (the command links no testing package;
// the engine links no simulator and no renderer). Only tests import it.
package golist

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// List runs go list with args in the current directory and returns the
// packages it prints, failing t when it cannot.
func List(t testing.TB, args ...string) []string {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	// Stdout alone: the go command writes "go: downloading …" to stderr
	// when the module cache is cold, and those words are not packages.
	cmd := exec.Command(goBin, append([]string{"list"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.Fields(string(out))
}

// Links reports whether dep is pkg or one of its subpackages; a trailing
// slash in pkg (as in "gonum.org/") is ignored.
func Links(dep, pkg string) bool {
	pkg = strings.TrimSuffix(pkg, "/")
	return dep == pkg || strings.HasPrefix(dep, pkg+"/")
}

// Linked lists the deps that are one of banned or inside one (as Links
// reads them): what a test that keeps a package's imports honest reports.
func Linked(deps []string, banned ...string) []string {
	var out []string
	for _, d := range deps {
		for _, b := range banned {
			if Links(d, b) {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

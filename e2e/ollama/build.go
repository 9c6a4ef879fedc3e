package ollamae2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ollamaModule is the module whose binary the tests serve.
const ollamaModule = "github.com/ollama/ollama"

// Version is the Ollama version this module requires in its go.mod, as
// `go list -m` reads it: the binary is built at the same version as the
// GGUF package the tests link. (A test binary carries no module list of
// its own to ask.)
func Version() (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{if .Replace}}{{.Replace.Version}}{{else}}{{.Version}}{{end}}", ollamaModule)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("which Ollama version go.mod pins: go list -m %s: %w", ollamaModule, err)
	}
	v := strings.TrimSpace(string(out))
	if v == "" {
		return "", fmt.Errorf("go.mod pins no version of %s", ollamaModule)
	}
	return v, nil
}

// CacheDir is where built binaries are kept, one folder per version:
// LLMSLO_OLLAMA_CACHE, or llmslo/ollama under the user's cache directory.
func CacheDir() (string, error) {
	if d := os.Getenv("LLMSLO_OLLAMA_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "llmslo", "ollama"), nil
}

// Binary returns the path of the Ollama binary at the pinned version,
// building it with cgo when the cache has none (built reports whether it
// did, and took how long). A build that fails returns its output's tail:
// a pinned version that no longer builds is an error, never a skip.
func Binary() (path string, built time.Duration, err error) {
	version, err := Version()
	if err != nil {
		return "", 0, err
	}
	cache, err := CacheDir()
	if err != nil {
		return "", 0, err
	}
	return binaryAt(version, cache)
}

// binaryAt is Binary for a version and a cache directory.
func binaryAt(version, cache string) (path string, built time.Duration, err error) {
	dir := filepath.Join(cache, version)
	path = filepath.Join(dir, "ollama")
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		return path, 0, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", 0, err
	}
	// Installed into a fresh folder and renamed into place, so that an
	// interrupted build never leaves a binary that looks whole.
	tmp, err := os.MkdirTemp(cache, version+".build-")
	if err != nil {
		return "", 0, err
	}
	defer os.RemoveAll(tmp)
	start := time.Now()
	cmd := exec.Command("go", "install", ollamaModule+"@"+version)
	// cgo on whatever the caller set (llmslo's CI builds without it); the
	// caller's GOFLAGS (-mod=mod) do not apply to a module@version install.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOBIN="+tmp, "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", 0, fmt.Errorf("the pinned Ollama %s does not build (go install %s@%s with cgo; it needs gcc and g++): %w\n%s",
			version, ollamaModule, version, err, tail(string(out), 3000))
	}
	_ = os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return "", 0, err
	}
	return path, time.Since(start), nil
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

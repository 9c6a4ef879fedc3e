package tune

import (
	"slices"
	"strings"

	"github.com/llmslo/llmslo/load/serveflags"
)

// Apply sets each change in turn.
func Apply(args []string, changes ...Change) []string {
	out := slices.Clone(args)
	for _, c := range changes {
		out = serveflags.Set(out, c.Flag, c.Value)
	}
	return out
}

// Command is the vLLM serve command line that starts model with args,
// each argument quoted for a POSIX shell where it needs to be.
func Command(model string, args []string) string {
	parts := []string{"vllm", "serve"}
	if model != "" {
		parts = append(parts, quote(model))
	}
	for _, a := range args {
		parts = append(parts, quote(a))
	}
	return strings.Join(parts, " ")
}

func quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

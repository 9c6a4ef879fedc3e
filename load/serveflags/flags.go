package tune

import (
	"slices"
	"strconv"
	"strings"
)

// Value is the last value given to flag in args ("--flag v" or
// "--flag=v"), as vLLM's argument parser keeps the last.
func Value(args []string, flag string) (string, bool) {
	v, found := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == flag && i+1 < len(args):
			v, found = args[i+1], true
			i++
		case strings.HasPrefix(a, flag+"="):
			v, found = strings.TrimPrefix(a, flag+"="), true
		}
	}
	return v, found
}

// Int is Value as an integer; a value that is not one counts as absent.
func Int(args []string, flag string) (int, bool) {
	v, ok := Value(args, flag)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

// Float is Value as a number; a value that is not one counts as absent.
func Float(args []string, flag string) (float64, bool) {
	v, ok := Value(args, flag)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	return f, err == nil
}

// Set returns args with flag set to value: every earlier occurrence
// removed and the flag appended, so that a command line stays readable
// after several changes.
func Set(args []string, flag, value string) []string {
	out := make([]string, 0, len(args)+2)
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == flag && i+1 < len(args):
			i++
			continue
		case strings.HasPrefix(a, flag+"="):
			continue
		}
		out = append(out, a)
	}
	return append(out, flag, value)
}

// Apply sets each change in turn.
func Apply(args []string, changes ...Change) []string {
	out := slices.Clone(args)
	for _, c := range changes {
		out = Set(out, c.Flag, c.Value)
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

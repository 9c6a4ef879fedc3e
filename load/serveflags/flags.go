// Package serveflags reads and sets flags in a vLLM serve command line, as
// vLLM's argument parser reads them (the last value given wins; "--flag v"
// and "--flag=v" alike). It is pure: the targets read the limits they
// were started with, and the tuning loop (package load/tune) changes one
// flag at a time. It does not check that a flag exists in vLLM.
package serveflags

import (
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

// Command llmslo gates LLM serving on service-level objectives: it replays a
// production request-length distribution at fixed open-loop rates against a
// vLLM-compatible server and checks latency SLOs and the trustworthiness of
// the measurement; a fixture with sessions is replayed session by session
// (docs/sessions.md). Subcommands: run, sweep, sim, fixture.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"syscall"
)

// Exit codes of the CLI contract.
const (
	exitPass    = 0 // every step passed
	exitFail    = 1 // an SLO was violated
	exitInvalid = 2 // the measurement is invalid (a hazard)
	exitUsage   = 3 // usage, input or target error
)

// command is one subcommand. Each lives in its own file and registers itself
// in init, so that the files stay independent.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func register(name string, c command) { commands[name] = c }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		usage(stderr)
		return exitUsage
	case args[0] == "-h" || args[0] == "--help" || (args[0] == "help" && len(args) == 1):
		usage(stderr)
		return exitPass
	case args[0] == "help":
		// help CMD [SUB] is CMD [SUB] -h: the command's own usage.
		if _, ok := commands[args[1]]; !ok {
			fmt.Fprintf(stderr, "llmslo help: unknown command %q\n", args[1])
			usage(stderr)
			return exitUsage
		}
		return dispatch(ctx, append(slices.Clone(args[1:]), "-h"), stdout, stderr)
	case args[0] == "-version" || args[0] == "--version":
		return versionCmd(ctx, args[1:], stdout, stderr)
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "llmslo: unknown command %q\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return c.run(ctx, args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: llmslo <command> [flags]")
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
}

// unexpectedArg reports the first positional argument fs left, with the
// fix when it is the value of a boolean flag given apart ("--salt false"):
// the flag package takes a boolean's value only after "=".
func unexpectedArg(name string, fs *flag.FlagSet, args []string, stderr io.Writer) int {
	arg := fs.Arg(0)
	fmt.Fprintf(stderr, "%s: unexpected argument %q", name, arg)
	if i := len(args) - fs.NArg(); i > 0 && (arg == "true" || arg == "false") {
		prev := strings.TrimLeft(args[i-1], "-")
		if f := fs.Lookup(prev); f != nil && !strings.Contains(prev, "=") {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				fmt.Fprintf(stderr, ": --%s takes its value with \"=\": --%s=%s", prev, prev, arg)
			}
		}
	}
	fmt.Fprintln(stderr)
	return exitUsage
}

// parseExit is the exit code for a flag-parsing error: 0 when help was
// asked for, 3 otherwise (the flag package has printed why).
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitPass
	}
	return exitUsage
}

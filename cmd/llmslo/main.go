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
	"sort"
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
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitPass
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

// parseExit is the exit code for a flag-parsing error: 0 when help was
// asked for, 3 otherwise (the flag package has printed why).
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitPass
	}
	return exitUsage
}

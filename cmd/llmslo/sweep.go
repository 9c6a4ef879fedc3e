package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/llmslo/llmslo/runner"
)

func init() {
	register("sweep", command{summary: "find the highest open-loop rate that meets every SLO", run: sweepCmd})
}

func sweepCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("llmslo sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f runFlags
	f.register(fs)
	refine := fs.Int("refine", 3, "bisection steps between the last passing and the first failing rate")
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "llmslo sweep: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *refine < 0 {
		fmt.Fprintln(stderr, "llmslo sweep: --refine must not be negative")
		return exitUsage
	}
	cfg, err := f.config(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "llmslo sweep: %v\n", err)
		return exitUsage
	}
	rep, err := runner.Sweep(ctx, cfg, *refine)
	if rep == nil {
		fmt.Fprintf(stderr, "llmslo sweep: %v\n", err)
		return exitUsage
	}
	code := finish(rep, err, f, stdout, stderr)
	if c := rep.Capacity; c != nil {
		switch {
		case c.PassRate == 0 && c.FailRate > 0:
			fmt.Fprintf(stdout, "capacity: below %g req/s (the lowest rate failed)\n", c.FailRate)
		case c.FailRate == 0:
			fmt.Fprintf(stdout, "capacity: at least %g req/s (every rate passed)\n", c.PassRate)
		default:
			fmt.Fprintf(stdout, "capacity: %g req/s meets every SLO; %g req/s does not\n", c.PassRate, c.FailRate)
		}
		// A sweep that found the knee did its job: steps above it are
		// expected to fail.
		if code == exitFail && c.PassRate > 0 && err == nil {
			code = exitPass
		}
	}
	return code
}

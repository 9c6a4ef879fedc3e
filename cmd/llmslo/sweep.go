package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/render"
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
	precision := fs.Float64("precision", 0, "stop bisecting once the knee's bracket is within this fraction of its upper end (0: run every --refine step)")
	var variants multiFlag
	fs.Var(&variants, "server-variant", "vLLM serve flags of one server variant, repeatable, e.g. '--max-num-seqs 128': one sweep each, side by side (sim target)")
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
	cfg, err := f.plan(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "llmslo sweep: %v\n", err)
		return exitUsage
	}
	rep, err := load.Sweep(ctx, cfg, load.Search{Refine: *refine, Precision: *precision, Variants: variants})
	if rep == nil {
		fmt.Fprintf(stderr, "llmslo sweep: %v\n", err)
		return exitUsage
	}
	code := finish(rep, err, f, stdout, stderr)
	if len(rep.Variants) > 0 {
		render.WriteVariants(stdout, rep)
		return code
	}
	if c := rep.Capacity; c != nil {
		fmt.Fprintln(stdout, "capacity: "+render.CapacityText(c, rep.Steps))
		// A sweep that found the knee did its job: steps above it are
		// expected to fail.
		if code == exitFail && c.PassRate > 0 && err == nil {
			code = exitPass
		}
	}
	return code
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/llmslo/llmslo/load/render"
	"github.com/llmslo/llmslo/load/tune"
	"github.com/llmslo/llmslo/load/verdict"
)

func init() {
	register("tune", command{summary: "fit, find the knee, move what binds one flag at a time, protect (docs/tuning.md)", run: tuneCmd})
}

func tuneCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("llmslo tune", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := registerSearch(fs, 0.1, "bisection steps of each sweep between its last passing and first failing rate",
		"stop a sweep's bisection once the knee's bracket is within this fraction of its upper end")
	budget := fs.Int("budget", tune.DefaultBudget, "sweeps to run at most, the first (from the flags as given) included")
	shedP99 := fs.Duration("shed-p99", verdict.DefaultShedP99, "the last step's overload gate: the limit on the p99 of a shed request's time to its 503")
	noOverload := fs.Bool("no-overload", false, "leave out the last step, the overload gate at 1.5× the final knee")
	f.pairs = func(set map[string]bool) error {
		if set["shed-p99"] && *noOverload {
			return errors.New("--shed-p99 bounds the overload gate that --no-overload leaves out")
		}
		return nil
	}
	cfg, code, ok := f.parse("llmslo tune", fs, args, stderr)
	if !ok {
		return code
	}
	if *budget < 1 {
		fmt.Fprintln(stderr, "llmslo tune: --budget must be at least 1")
		return exitUsage
	}
	rep, err := tune.Tune(ctx, cfg, tune.Options{Search: f.search(), Budget: *budget,
		Overload: verdict.OverloadSettings{ShedP99: *shedP99}, NoOverload: *noOverload})
	if rep == nil {
		fmt.Fprintf(stderr, "llmslo tune: %v\n", err)
		return exitUsage
	}
	code = finish(rep, err, f.run, stdout, stderr)
	render.WriteTune(stdout, rep)
	// An overload gate that failed fails the session, knee or not.
	if rep.Tune != nil && rep.Tune.OverloadGate != nil && !rep.Tune.OverloadGate.Pass {
		return code
	}
	return kneeFound(code, rep, err)
}

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/llmslo/llmslo/internal/targets"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/render"
	"github.com/llmslo/llmslo/load/report"
)

func init() {
	register("sweep", command{summary: "find the highest open-loop rate that meets every SLO", run: sweepCmd})
}

func sweepCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("llmslo sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := registerSearch(fs, 0, "bisection steps between the last passing and the first failing rate",
		"stop bisecting once the knee's bracket is within this fraction of its upper end (0: run every --refine step)")
	var variants multiFlag
	fs.Var(&variants, "server-variant", "vLLM serve flags of one server variant, repeatable, e.g. '--max-num-seqs 128': one sweep each, side by side (sim target)")
	f.pairs = func(set map[string]bool) error {
		if t := strings.TrimSpace(f.run.target); set["server-variant"] && t != targets.Sim && t != targets.VLLM {
			return fmt.Errorf("--server-variant needs a server llmslo starts (--target sim or vllm); --target %s is one already running", t)
		}
		return nil
	}
	cfg, code, ok := f.parse("llmslo sweep", fs, args, stderr)
	if !ok {
		return code
	}
	search := f.search()
	search.Variants = variants
	rep, err := load.Sweep(ctx, cfg, search)
	if rep == nil {
		fmt.Fprintf(stderr, "llmslo sweep: %v\n", err)
		return exitUsage
	}
	code = finish(rep, err, f.run, stdout, stderr)
	if len(rep.Variants) > 0 {
		render.WriteVariants(stdout, rep)
		return code
	}
	writeCapacity(stdout, rep)
	return kneeFound(code, rep, err)
}

// writeCapacity adds what the sweep found below the summary. The verdict
// line already says where the knee is when one was found: only what binds
// there is added, so that the finding is said once.
func writeCapacity(w io.Writer, rep *report.Report) {
	switch c := rep.Capacity; {
	case c == nil:
	case rep.SearchOutcome() != "":
		if b := render.BindingText(c); b != "" {
			fmt.Fprintln(w, strings.TrimPrefix(b, "\n"))
		}
	default:
		fmt.Fprintln(w, "capacity: "+render.CapacityText(c, rep.Steps))
	}
}

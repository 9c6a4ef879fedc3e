package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
)

func init() {
	register("merge", command{summary: "join the reports of the shards of one schedule and judge them again", run: mergeCmd})
}

// mergeCmd joins shard reports (llmslo run --shard I/N) into one report,
// judges its steps again and exits with the verdict's code, as run would
// have for one client sending the whole schedule.
func mergeCmd(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("llmslo merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: llmslo merge [-o merged.json] [--html merged.html] SHARD.json...")
		fs.PrintDefaults()
	}
	out := fs.String("o", "", "write the merged JSON report to this file")
	html := fs.String("html", "", "write the merged HTML report to this file")
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "llmslo merge: give the shards' reports, e.g. llmslo merge -o merged.json shard-*.json")
		return exitUsage
	}
	if err := checkOutputPaths([][2]string{{"-o", *out}, {"--html", *html}}); err != nil {
		fmt.Fprintf(stderr, "llmslo merge: %v\n", err)
		return exitUsage
	}
	reps := make([]*report.Report, 0, fs.NArg())
	for _, path := range fs.Args() {
		r, err := readReport(path)
		if err != nil {
			fmt.Fprintf(stderr, "llmslo merge: %v\n", err)
			return exitUsage
		}
		reps = append(reps, r)
	}
	merged, err := verdict.MergeShards(reps, fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "llmslo merge: %v\n", err)
		return exitUsage
	}
	if merged.Partial {
		fmt.Fprintf(stderr, "llmslo merge: a shard was cut short (%s): the merged report is marked partial\n", merged.Reason)
	}
	return finish(merged, nil, runFlags{report: *out, html: *html}, stdout, stderr)
}

func readReport(path string) (*report.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r report.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a report: %w", path, err)
	}
	return &r, nil
}

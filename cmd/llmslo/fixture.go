package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/fixtures/formats"
)

func init() {
	register("fixture", command{summary: "build a fixture from a request log, or show a fixture's statistics", run: fixtureCmd})
}

const fixtureUsage = `usage:
  llmslo fixture build --from FILE [--format azure|mooncake|jsonl|vllm-metrics|weka|bailian|burstgpt|llmslo] [--name NAME] [--max-model-len N] -o out.json
  llmslo fixture stats [--format F] [--json] FILE_OR_NAME
fixture names: %s, fixed:IN:OUT, random:IN:OUT[:RANGE]
a FILE may be a folder of WEKA agentic session files (one JSON file a session)
`

func fixtureCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(stderr, fixtureUsage, strings.Join(formats.Names(), ", "))
		if len(args) == 0 {
			return exitUsage
		}
		return exitPass
	}
	switch args[0] {
	case "build":
		return fixtureBuild(args[1:], stdout, stderr)
	case "stats":
		return fixtureStats(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "llmslo fixture: unknown subcommand %q\n", args[0])
	fmt.Fprintf(stderr, fixtureUsage, strings.Join(formats.Names(), ", "))
	return exitUsage
}

// parseInterspersed parses flags that may come before or after positional
// arguments (llmslo fixture stats FILE --json).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func fixtureBuild(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("llmslo fixture build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "source file: an Azure trace CSV, Mooncake JSONL, usage JSONL log, vLLM /metrics scrape, "+
		"WEKA session JSON (or a folder of them), Bailian JSONL, BurstGPT CSV or llmslo JSON")
	format := fs.String("format", "", "source format (default: detected from the content)")
	out := fs.String("o", "", "output file ('-' for stdout)")
	name := fs.String("name", "", "fixture name (default: the source file's name)")
	maxLen := fs.Int("max-model-len", 0, "clip requests to input+output ≤ N (0: no clipping)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return parseExit(err)
	}
	switch {
	case len(pos) > 0:
		fmt.Fprintf(stderr, "llmslo fixture build: unexpected argument %q\n", pos[0])
		return exitUsage
	case *from == "":
		fmt.Fprintln(stderr, "llmslo fixture build: --from FILE is required")
		return exitUsage
	case *out == "":
		fmt.Fprintln(stderr, "llmslo fixture build: -o out.json is required")
		return exitUsage
	}
	f, err := formats.ParseFormat(*format)
	if err != nil {
		fmt.Fprintf(stderr, "llmslo fixture build: --format: %v\n", err)
		return exitUsage
	}
	fx, err := formats.LoadFormat(*from, f)
	if err != nil {
		fmt.Fprintf(stderr, "llmslo fixture build: %v\n", err)
		return exitUsage
	}
	if *name != "" {
		fx.Name = *name
	}
	if *maxLen > 0 {
		fx = fx.Clip(*maxLen)
	}
	w := stdout
	if *out != "-" {
		file, err := os.Create(*out)
		if err != nil {
			fmt.Fprintf(stderr, "llmslo fixture build: %v\n", err)
			return exitUsage
		}
		defer file.Close()
		w = file
	}
	if err := fx.WriteJSON(w); err != nil {
		fmt.Fprintf(stderr, "llmslo fixture build: writing %s: %v\n", *out, err)
		return exitUsage
	}
	if c, ok := w.(io.Closer); ok && w != stdout {
		if err := c.Close(); err != nil {
			fmt.Fprintf(stderr, "llmslo fixture build: writing %s: %v\n", *out, err)
			return exitUsage
		}
	}
	info := fx.Info()
	fmt.Fprintf(stderr, "llmslo fixture build: wrote %s: %d requests from %s (%s)%s\n",
		*out, info.Requests, *from, info.SourceFormat, clippedNote(info.Clipped))
	return exitPass
}

func clippedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d clipped", n)
}

// statsJSON is the machine output of fixture stats.
type statsJSON struct {
	fixtures.Info
	Provenance fixtures.Provenance `json:"provenance"`
}

func fixtureStats(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("llmslo fixture stats", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	format := fs.String("format", "", "source format of a file (default: detected from the content)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "llmslo fixture stats: want one FILE_OR_NAME")
		return exitUsage
	}
	f, err := formats.ParseFormat(*format)
	if err != nil {
		fmt.Fprintf(stderr, "llmslo fixture stats: --format: %v\n", err)
		return exitUsage
	}
	var fx *fixtures.Fixture
	if f == "" {
		fx, err = formats.Open(pos[0])
	} else {
		fx, err = formats.LoadFormat(pos[0], f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "llmslo fixture stats: %v\n", err)
		return exitUsage
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(statsJSON{Info: fx.Info(), Provenance: fx.Provenance}); err != nil {
			fmt.Fprintf(stderr, "llmslo fixture stats: %v\n", err)
			return exitUsage
		}
		return exitPass
	}
	writeStatsTable(stdout, fx)
	return exitPass
}

func writeStatsTable(out io.Writer, fx *fixtures.Fixture) {
	info, p := fx.Info(), fx.Provenance
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	pairing := "joint (input, output) pairs"
	if !info.Joint {
		pairing = "independent marginals: input and output lengths are drawn separately"
	}
	fmt.Fprintf(tw, "fixture\t%s\n", info.Name)
	fmt.Fprintf(tw, "source\t%s (%s), %d rows\n", p.SourceFile, p.SourceFormat, p.Rows)
	fmt.Fprintf(tw, "samples\t%s\n", pairing)
	if p.License != "" {
		fmt.Fprintf(tw, "licence\t%s\n", p.License)
	}
	if p.Attribution != "" {
		fmt.Fprintf(tw, "attribution\t%s\n", p.Attribution)
	}
	fmt.Fprintf(tw, "requests\t%d\n", info.Requests)
	if p.Skipped > 0 {
		fmt.Fprintf(tw, "skipped\t%d source rows (failed requests, API-log rows)\n", p.Skipped)
	}
	if info.Clipped > 0 {
		fmt.Fprintf(tw, "clipped\t%d\n", info.Clipped)
	}
	tw.Flush()
	fmt.Fprintln(out)
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tokens\tcount\tmean\tp50\tp90\tp95\tp99\tmax\t")
	for _, row := range []struct {
		name string
		d    fixtures.Dist
	}{{"input", info.InputTokens}, {"output", info.OutputTokens}} {
		d := row.d
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t\n", row.name, d.Count, d.Mean, d.P50, d.P90, d.P95, d.P99, d.Max)
	}
	tw.Flush()
	fmt.Fprintln(out)
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	if info.MeanRatePerS > 0 {
		fmt.Fprintf(tw, "mean rate\t%.2f req/s\n", info.MeanRatePerS)
		if info.Burstiness > 0 {
			fmt.Fprintf(tw, "burstiness\t%.3f (gamma shape of inter-arrival times; 1 = Poisson, lower = burstier)\n", info.Burstiness)
		} else {
			fmt.Fprintf(tw, "burstiness\tundefined (inter-arrival times without variance)\n")
		}
	} else if fx.Sessions != nil && !p.SessionsTimed {
		fmt.Fprintf(tw, "arrivals\tnone: the sessions were recorded apart, with no common clock\n")
	} else {
		fmt.Fprintf(tw, "arrivals\tno timestamps\n")
	}
	if fx.Blocks != nil {
		fmt.Fprintf(tw, "prefix hit rate\t%.1f%% expected (infinite cache, %d-token blocks)\n", 100*info.ExpectedPrefixHitRate, fx.BlockSize)
	} else {
		fmt.Fprintf(tw, "prefix hit rate\t%.1f%% expected (no prefix blocks recorded)\n", 100*info.ExpectedPrefixHitRate)
	}
	tw.Flush()
	if info.Sessions != nil {
		fmt.Fprintln(out)
		writeSessionStats(out, *info.Sessions, p.ThinkIsGap, fx.Blocks != nil)
	}
}

func writeSessionStats(out io.Writer, st fixtures.SessionStats, thinkIsGap, blocks bool) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "sessions\t%d, with %d sub-agents\n", st.Sessions, st.SubAgents)
	fmt.Fprintf(tw, "requests\t%d\n", st.Requests)
	d := st.TurnsPerSession
	fmt.Fprintf(tw, "turns per session\tp50 %.0f, p95 %.0f, max %d (a session's requests, its sub-agents' included)\n", d.P50, d.P95, d.Max)
	what := "the client's wait after the previous response"
	if thinkIsGap {
		what = "gaps between arrivals: the source kept no response ends"
	}
	if st.ThinkTurns > 0 {
		fmt.Fprintf(tw, "think time\tp50 %.1f s, p95 %.1f s over %d turns (%s)\n", st.ThinkP50S, st.ThinkP95S, st.ThinkTurns, what)
	} else {
		fmt.Fprintf(tw, "think time\tnone (every session has one turn)\n")
	}
	switch {
	case st.SubAgents == 0:
	case st.SpawnsPlaced == 0:
		fmt.Fprintf(tw, "sub-agent starts\tat their recorded offsets from their parents' starts (the source kept no response ends)\n")
	default:
		rest := ""
		if st.SpawnsPlaced < st.SubAgents {
			rest = "; the rest at their recorded offsets from their parents' starts"
		}
		fmt.Fprintf(tw, "sub-agent starts\t%d of %d after the response that started them: p50 %.2f s, max %.2f s after its end%s\n",
			st.SpawnsPlaced, st.SubAgents, st.SpawnGapP50S, st.SpawnGapMaxS, rest)
	}
	if blocks {
		fmt.Fprintf(tw, "in-session hit rate\t%.1f%% expected (blocks resent within a session and its sub-agents; per-session mean %.1f%%)\n",
			100*st.PrefixHitRate, 100*st.MeanSessionHitRate)
	} else {
		fmt.Fprintf(tw, "in-session hit rate\tunknown (no prefix blocks recorded)\n")
	}
	tw.Flush()
}

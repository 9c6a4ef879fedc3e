package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/llmslo/llmslo/internal/testkit"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildLLMSLO builds the command, so that shards run as separate processes,
// exactly as pods would.
func buildLLMSLO(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "llmslo")
	out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

func runBin(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.CommandContext(t.Context(), bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	}
	require.NoError(t, err)
	return 0, out.String()
}

func readReportFile(t *testing.T, path string) *report.Report {
	t.Helper()
	r, err := readReport(path)
	require.NoError(t, err)
	return r
}

// Three shard processes with one start time send exactly the schedule one
// client sends, and their merged report says what the single client's
// does. The server holds every token to a fixed deadline after the
// request arrived (instant engine, paced TTFT and ITL), so the two runs
// differ only by loopback and scheduling jitter: counts must be equal,
// latencies equal within that jitter. (Equality to the bit, on identical
// observations, is runner's TestMergeEqualsTheSingleClientsStep.)
func TestShardProcessesMergeToTheSingleClientsRun(t *testing.T) {
	testkit.Long(t) // four processes of two steps each, built with go build
	bin := buildLLMSLO(t)
	// Two servers alike: one for the single client, one for the shards.
	// One server for both would serve each the other's prompts (they are
	// the same prompts) from its prefix cache: warm_cache, rightly.
	paced := vllmsim.Config{Model: "m", ProfileName: "instant",
		Faults: vllmsim.Faults{PacedTTFT: 40 * time.Millisecond, PacedITL: 5 * time.Millisecond}}
	srv, singleSrv := vllmsim.NewServer(paced), vllmsim.NewServer(paced)
	defer srv.Close()
	defer singleSrv.Close()
	dir := t.TempDir()
	common := []string{"run", "--fixture", "fixed:64:8", "--rates", "15,30", "--seed", "3",
		"--duration", "2s", "--warmup", "500ms", "--drain", "1s", "--slo", "ttft.p50<=200ms", "--slo", "itl.p90<=50ms", "--quiet"}

	// The single client and the three shards start at one instant, side by
	// side: the same server, the same machine, the same moment, so what
	// differs is how the schedule was split.
	const n = 3
	start := time.Now().Add(2 * time.Second)
	startAt := fmt.Sprintf("%.3f", float64(start.UnixMilli())/1000)
	singlePath := filepath.Join(dir, "single.json")
	var singleCode int
	paths := make([]string, n)
	codes := make([]int, n)
	var wg sync.WaitGroup
	wg.Go(func() {
		var o string
		singleCode, o = runBin(t, bin, slices.Concat(common, []string{"--target", singleSrv.URL, "--start-at", startAt, "--report", singlePath})...)
		t.Logf("single client:\n%s", o)
	})
	for i := range n {
		paths[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		wg.Go(func() {
			var o string
			codes[i], o = runBin(t, bin, slices.Concat(common, []string{"--target", srv.URL, "--shard", fmt.Sprintf("%d/%d", i, n), "--start-at", startAt, "--report", paths[i]})...)
			t.Logf("shard %d:\n%s", i, o)
		})
	}
	wg.Wait()
	single := readReportFile(t, singlePath)
	for i, c := range codes {
		require.NotEqual(t, exitUsage, c, "shard %d", i)
	}
	mergedPath := filepath.Join(dir, "merged.json")
	page := filepath.Join(dir, "merged.html")
	mergeCode, out := runBin(t, bin, append([]string{"merge", "-o", mergedPath, "--html", page}, paths...)...)
	t.Log(out)
	merged := readReportFile(t, mergedPath)
	_, err := os.Stat(page)
	require.NoError(t, err, "the merged HTML report")

	require.Len(t, merged.Steps, len(single.Steps))
	saturated := false
	for i, s := range single.Steps {
		m := merged.Steps[i]
		assert.Equal(t, s.Name, m.Name)
		assert.Equal(t, s.Requests.Scheduled, m.Requests.Scheduled, "%s scheduled", s.Name)
		assert.Equal(t, s.Requests.Sent, m.Requests.Sent, "%s sent", s.Name)
		assert.Equal(t, s.Requests.Completed, m.Requests.Completed, "%s completed", s.Name)
		assert.Equal(t, s.Tokens.Input, m.Tokens.Input, "%s input tokens: the same requests", s.Name)
		assert.Equal(t, s.Tokens.Output, m.Tokens.Output, "%s output tokens", s.Name)
		assert.Equal(t, s.ITL.Count, m.ITL.Count, "%s ITL samples", s.Name)
		// TTFT counts from the intended time, so it carries each run's own
		// send lag: a busy machine makes one run's clients later than the
		// other's.
		lag := s.SendLag.P90 + m.SendLag.P90
		assert.InDelta(t, s.TTFT.P50, m.TTFT.P50, 3+lag, "%s TTFT p50 (ms)", s.Name)
		assert.InDelta(t, s.E2EL.P50, m.E2EL.P50, 4+lag, "%s E2EL p50 (ms)", s.Name)
		assert.InDelta(t, s.TTFTSend.P50, m.TTFTSend.P50, 3, "%s TTFT from send p50 (ms)", s.Name)
		assert.InDelta(t, s.ITL.P50, m.ITL.P50, 1, "%s ITL p50 (ms)", s.Name)
		assert.InDelta(t, s.RateAchieved, m.RateAchieved, 0.1*s.RateAchieved, "%s achieved rate", s.Name)
		for k, r := range s.SLO {
			assert.Equal(t, r.Pass, m.SLO[k].Pass, "%s %s", s.Name, r.Metric)
		}
		shardSaturated := false
		for _, sh := range m.Shards {
			shardSaturated = shardSaturated || hasHazard(sh.Hazards, verdict.HazardClientSaturation)
		}
		if shardSaturated {
			assert.Equal(t, report.VerdictInvalid, m.Verdict, "%s: a shard's client was late", s.Name)
		}
		assert.Equal(t, punctual(t, s), punctual(t, m), "%s: verdicts with the clients' lateness aside", s.Name)
		if shardSaturated || m.HasHazard(verdict.HazardClientSaturation) || s.HasHazard(verdict.HazardClientSaturation) {
			// The shared test machine made a client late in one run only:
			// the verdicts may then differ for that reason alone.
			t.Logf("%s: a client was late (single %v, merged %v); verdicts not compared", s.Name, s.Hazards, m.Hazards)
			saturated = true
			continue
		}
		assert.Equal(t, s.Verdict, m.Verdict, "%s: single %v, merged %v", s.Name, s.Hazards, m.Hazards)
	}
	if !saturated {
		assert.Equal(t, singleCode, mergeCode, "exit codes")
		assert.Equal(t, report.VerdictPass, merged.Verdict)
	}

	t.Run("starved shard", func(t *testing.T) {
		// Shard 1 sent a third of its share after the window ended: the
		// whole schedule's load changed, which the merged counts show.
		r := readReportFile(t, paths[1])
		ev := r.Steps[0].Evidence
		ev.SentInWindow -= ev.Due / 3
		doctored := filepath.Join(t.TempDir(), "shard-1.json")
		require.NoError(t, r.WriteJSON(doctored))
		code, stdout, stderr := runArgs(t, "merge", "-o", filepath.Join(t.TempDir(), "m.json"), paths[0], doctored, paths[2])
		assert.Equal(t, exitInvalid, code, stderr)
		assert.Contains(t, stdout, "client_saturation")
	})
	t.Run("mismatched", func(t *testing.T) {
		r := readReportFile(t, paths[2])
		r.Seed = 4
		doctored := filepath.Join(t.TempDir(), "shard-2.json")
		require.NoError(t, r.WriteJSON(doctored))
		code, _, stderr := runArgs(t, "merge", paths[0], paths[1], doctored)
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, stderr, doctored+": seed is 4, but "+paths[0]+"'s is 3")

		code, _, stderr = runArgs(t, "merge", paths[0], paths[1])
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, stderr, "shard.index 2 of 3 is missing")
		code, _, stderr = runArgs(t, "merge", paths[0], paths[1], paths[1])
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, stderr, "shard.index 1 is duplicate")
		code, _, stderr = runArgs(t, "merge", singlePath)
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, stderr, singlePath+": not a shard's report")
	})
}

// punctual judges a step again as if its client had been on time: the
// verdict the server and the SLOs alone decide, which a busy test machine
// cannot change.
func punctual(t *testing.T, st report.StepReport) report.Verdict {
	t.Helper()
	ev, ok := observe.EvidenceOf(&st)
	require.True(t, ok, "the report keeps the hazards' evidence")
	slos, err := verdict.ParseSLOs([]string{"ttft.p50<=200ms", "itl.p90<=50ms"})
	require.NoError(t, err)
	verdict.Judge(&st, ev, verdict.Criteria{SLOs: slos, MeanOutputTokens: 8,
		Thresholds: verdict.Thresholds{Off: []string{verdict.HazardClientSaturation}}}).Apply(&st)
	return st.Verdict
}

func hasHazard(hs []report.Hazard, kind string) bool {
	for _, h := range hs {
		if h.Kind == kind {
			return true
		}
	}
	return false
}

func TestShardUsageErrors(t *testing.T) {
	future := fmt.Sprint(time.Now().Add(time.Hour).Unix())
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--rates", "2", "--shard", "3/3", "--start-at", future}, "--shard"},
		{[]string{"run", "--rates", "2", "--shard", "0/2", "--start-at", "noon"}, "--start-at"},
		{[]string{"run", "--rates", "2", "--shard", "0/2", "--quiet"}, "start time shared by all shards"},
		{[]string{"run", "--rates", "2", "--shard", "0/2", "--start-at", future, "--quiet"}, "one shared server"},
		{[]string{"run", "--rates", "2", "--start-at", "1700000000", "--quiet"}, "passed"},
		{[]string{"sweep", "--rates", "2", "--shard", "0/2"}, "flag provided but not defined: -shard"},
		{[]string{"merge"}, "give the shards' reports"},
		{[]string{"merge", "no/such/shard.json"}, "no/such/shard.json"},
	}
	for _, tc := range cases {
		code, _, stderr := runArgs(t, tc.args...)
		assert.Equal(t, exitUsage, code, "%v: %s", tc.args, stderr)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
	}
}

// A report that is not JSON is refused by name.
func TestMergeRefusesAFileThatIsNoReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shard-0.json")
	require.NoError(t, os.WriteFile(path, []byte("not json"), 0o644))
	code, _, stderr := runArgs(t, "merge", path)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, path+": not a report")
}

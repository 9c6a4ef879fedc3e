package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runFixtureCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = dispatch(context.Background(), append([]string{"fixture"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestFixtureStatsTable(t *testing.T) {
	code, out, _ := runFixtureCLI(t, "stats", "azure-code-2023")
	require.Equal(t, exitPass, code)
	for _, want := range []string{"azure-code-2023", "8819 rows", "joint (input, output) pairs", "CC-BY-4.0",
		"2047.8", "1469", "7303", "7437", "1899", "2.57 req/s", "burstiness", "0.0% expected"} {
		assert.Contains(t, out, want)
	}
}

func TestFixtureStatsJSON(t *testing.T) {
	code, out, _ := runFixtureCLI(t, "stats", "azure-conv-2023", "--json")
	require.Equal(t, exitPass, code)
	var got struct {
		Name         string                           `json:"name"`
		Requests     int                              `json:"requests"`
		Joint        bool                             `json:"joint"`
		InputTokens  struct{ Mean, P50, P95 float64 } `json:"input_tokens"`
		OutputTokens struct {
			Mean float64
			Max  int
		} `json:"output_tokens"`
		Rate       float64 `json:"mean_rate_per_s"`
		Provenance struct {
			License string `json:"license"`
		} `json:"provenance"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "azure-conv-2023", got.Name)
	assert.Equal(t, 19366, got.Requests)
	assert.True(t, got.Joint)
	assert.InDelta(t, 1155, got.InputTokens.Mean, 0.5)
	assert.Equal(t, 1020.0, got.InputTokens.P50)
	assert.Equal(t, 4083.0, got.InputTokens.P95)
	assert.InDelta(t, 211, got.OutputTokens.Mean, 0.5)
	assert.Equal(t, 1000, got.OutputTokens.Max)
	assert.InDelta(t, 5.53, got.Rate, 0.005)
	assert.Equal(t, "CC-BY-4.0", got.Provenance.License)
}

func TestFixtureBuildThenStats(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "trace.jsonl")
	require.NoError(t, os.WriteFile(src, []byte(
		`{"timestamp": 0, "input_length": 1024, "output_length": 10, "hash_ids": [1, 2]}
{"timestamp": 1000, "input_length": 1024, "output_length": 30, "hash_ids": [1, 2]}
{"timestamp": 2000, "input_length": 2048, "output_length": 20, "hash_ids": [1, 2, 3, 4]}
`), 0o644))
	out := filepath.Join(dir, "out.json")
	code, _, errs := runFixtureCLI(t, "build", "--from", src, "--name", "mine", "-o", out)
	require.Equal(t, exitPass, code, errs)
	assert.Contains(t, errs, "3 requests")

	code, stdout, _ := runFixtureCLI(t, "stats", "--json", out)
	require.Equal(t, exitPass, code)
	var info struct {
		Name    string  `json:"name"`
		Format  string  `json:"source_format"`
		HitRate float64 `json:"expected_prefix_hit_rate"`
		Rate    float64 `json:"mean_rate_per_s"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &info))
	assert.Equal(t, "mine", info.Name)
	assert.Equal(t, "mooncake", info.Format)
	// Hits: row 2 reuses 1024 tokens, row 3 reuses 1024 of 2048: 2048/4096.
	assert.Equal(t, 0.5, info.HitRate)
	assert.Equal(t, 1.0, info.Rate)

	code, stdout, _ = runFixtureCLI(t, "stats", out)
	require.Equal(t, exitPass, code)
	assert.Contains(t, stdout, "50.0% expected (infinite cache, 512-token blocks)")

	// Clipping at build time is counted.
	clipped := filepath.Join(dir, "clipped.json")
	code, _, errs = runFixtureCLI(t, "build", "--from", out, "--max-model-len", "1500", "-o", clipped)
	require.Equal(t, exitPass, code, errs)
	assert.Contains(t, errs, "1 clipped")
}

func TestFixtureBadInputExitsThree(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.9799600,100,5\n2023-11-16 18:17:04.0319600,abc,5"), 0o644))
	empty := filepath.Join(dir, "empty.jsonl")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	cases := []struct {
		args []string
		says string
	}{
		{[]string{"stats", bad}, bad + ":3: field ContextTokens: not a number"},
		{[]string{"build", "--from", bad, "-o", filepath.Join(dir, "x.json")}, bad + ":3: field ContextTokens"},
		{[]string{"stats", empty}, "no requests"},
		{[]string{"stats", filepath.Join(dir, "missing.csv")}, "not a file, not an embedded name"},
		{[]string{"stats", "fixed:0:5"}, "field IN"},
		{[]string{"stats", "--format", "xml", bad}, "unknown fixture format"},
		{[]string{"stats"}, "want one FILE_OR_NAME"},
		{[]string{"build", "-o", "x.json"}, "--from FILE is required"},
		{[]string{"build", "--from", bad}, "-o out.json is required"},
		{[]string{"frobnicate"}, "unknown subcommand"},
		{nil, "usage:"},
	}
	for _, c := range cases {
		code, stdout, stderr := runFixtureCLI(t, c.args...)
		assert.Equal(t, exitUsage, code, "%v", c.args)
		assert.Contains(t, stderr, c.says, "%v", c.args)
		assert.Empty(t, stdout, "%v", c.args)
	}
	_, err := os.Stat(filepath.Join(dir, "x.json"))
	assert.True(t, os.IsNotExist(err), "no output is written for bad input")
	code, _, stderr := runFixtureCLI(t, "--help")
	assert.Equal(t, exitPass, code)
	assert.True(t, strings.Contains(stderr, "azure-code-2023"))
}

// The session figures of the WEKA sample folder (see fixtures' tests for
// how they were checked).
func TestFixtureStatsSessions(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "formats", "testdata", "weka")
	code, out, errOut := runFixtureCLI(t, "stats", dir)
	require.Equal(t, exitPass, code, errOut)
	for _, want := range []string{
		"(weka), 62 rows",
		"the sessions were recorded apart",
		"sessions             4, with 4 sub-agents",
		"turns per session    p50 3, p95 46, max 53",
		"think time           p50 4.0 s, p95 61.7 s over 54 turns (the client's wait after the previous response)",
		"in-session hit rate  86.2% expected",
		"per-session mean 68.8%",
		// trace_0277's four sub-agents start 0.681, 0.694, 0.694 and 0.970 s
		// after the end (t + api_time) of the parent's response before them.
		"sub-agent starts     4 of 4 after the response that started them: p50 0.69 s, max 0.97 s after its end",
	} {
		assert.Contains(t, out, want)
	}

	code, out, errOut = runFixtureCLI(t, "stats", "--json", dir)
	require.Equal(t, exitPass, code, errOut)
	var got struct {
		Sessions struct {
			Sessions      int     `json:"sessions"`
			SubAgents     int     `json:"sub_agents"`
			Requests      int     `json:"requests"`
			ThinkP95S     float64 `json:"think_p95_s"`
			PrefixHitRate float64 `json:"prefix_hit_rate"`
			SpawnsPlaced  int     `json:"spawns_placed"`
			SpawnGapMaxS  float64 `json:"spawn_gap_max_s"`
		} `json:"sessions"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, 4, got.Sessions.Sessions)
	assert.Equal(t, 4, got.Sessions.SubAgents)
	assert.Equal(t, 62, got.Sessions.Requests)
	assert.InDelta(t, 61.7, got.Sessions.ThinkP95S, 1e-9)
	assert.InDelta(t, 0.862, got.Sessions.PrefixHitRate, 0.0005)
	assert.Equal(t, 4, got.Sessions.SpawnsPlaced)
	assert.InDelta(t, 0.970, got.Sessions.SpawnGapMaxS, 1e-9)

	code, out, _ = runFixtureCLI(t, "stats", filepath.Join("..", "..", "fixtures", "formats", "testdata", "burstgpt_small.csv"))
	require.Equal(t, exitPass, code)
	assert.Contains(t, out, "gaps between arrivals")
	assert.Contains(t, out, "skipped   2 source rows")
	assert.Contains(t, out, "in-session hit rate  unknown")
}

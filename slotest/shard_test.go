package slotest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
)

func TestShardEnvironmentIsRead(t *testing.T) {
	t.Setenv(EnvShard, "1/3")
	t.Setenv(EnvStartAt, "2030-01-01T00:00:00Z")
	cfg := newConfig()
	WithStarvedRetries(1)(&cfg) // the gate's own: a shard's steps keep the shared clock
	require.NoError(t, applyShardEnv(&cfg))
	assert.Equal(t, load.Shard{Index: 1, Count: 3}, cfg.Shard)
	assert.Zero(t, cfg.StarvedRetries)
	assert.Equal(t, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), cfg.StartAt.UTC())
	assert.Equal(t, filepath.Join("out", "shard-1-of-3"), shardDir("out", cfg))

	t.Setenv(EnvShard, "3/3")
	assert.ErrorContains(t, applyShardEnv(&cfg), EnvShard)
	t.Setenv(EnvShard, "1/3")
	t.Setenv(EnvStartAt, "soon")
	assert.ErrorContains(t, applyShardEnv(&cfg), EnvStartAt)
}

func TestShardStepsAreNeverShortenedToTheDeadline(t *testing.T) {
	if _, ok := t.Deadline(); !ok {
		t.Skip("no -timeout: no deadline to fit")
	}
	cfg := newConfig(WithRates(1, 2))
	cfg.StartAt = time.Now().Add(100 * 365 * 24 * time.Hour)
	err := fitRun(t, &cfg)
	assert.ErrorContains(t, err, "shards' steps cannot be shortened")
	assert.Equal(t, load.DefaultDuration, cfg.Duration, "unchanged")
}

// One shard of one (the whole schedule) run through Run as an Indexed Job's
// pod would: the environment chooses the server, the shard and the start,
// and the report lands in the shard's own folder, marked with the shard.
func TestRunAsAShard(t *testing.T) {
	srv := simtest.Start(t, vllmsim.Config{ProfileName: "instant"})
	dir := t.TempDir()
	t.Setenv(EnvTarget, srv.URL)
	t.Setenv(EnvReportDir, dir)
	t.Setenv(EnvShard, "0/1")
	t.Setenv(EnvStartAt, fmt.Sprintf("%.3f", float64(time.Now().Add(700*time.Millisecond).UnixMilli())/1000))
	t.Cleanup(func() {
		// Run writes the report in a cleanup of its own, registered later,
		// so run before this one.
		_, err := os.Stat(filepath.Join(dir, "TestRunAsAShard", "shard-0-of-1", "report.json"))
		assert.NoError(t, err)
	})
	rep := Run(t, WithFixture("fixed:32:4"), WithRates(20), WithArrival("constant"), WithDuration(time.Second),
		WithWarmup(0), WithDrainTimeout(time.Second), WithSLO("ttft.p50<=1s"), WithThresholds(clientQuiet))
	require.NotNil(t, rep.Shard)
	assert.Equal(t, 1, rep.Shard.Count)
	require.Len(t, rep.Steps, 1)
	assert.Equal(t, 20, rep.Steps[0].Requests.Scheduled)
	assert.Equal(t, report.VerdictPass, rep.Steps[0].Verdict, "%v", rep.Steps[0].Hazards)
	assert.NotContains(t, rep.Steps[0].HazardsOff, verdict.HazardTooFewSamples)
}

package slotest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmslo/llmslo/load"
)

// Environment variables that make a gate run one shard of its schedule,
// as SLOTEST_TARGET chooses its server: N processes (pods of an Indexed
// Job) with SLOTEST_SHARD=0/N … N-1/N and one SLOTEST_START_AT send the
// schedule one client would, and llmslo merge joins their reports
// (docs/sharding.md).
const (
	EnvShard   = "SLOTEST_SHARD"    // I/N, I from 0
	EnvStartAt = "SLOTEST_START_AT" // unix seconds or RFC 3339
)

// applyShardEnv reads the shard and the shared start from the environment.
func applyShardEnv(cfg *config) error {
	if v := os.Getenv(EnvShard); v != "" {
		s, err := load.ParseShard(v)
		if err != nil {
			return fmt.Errorf("slotest: %s: %w", EnvShard, err)
		}
		cfg.Shard = s
	}
	if v := os.Getenv(EnvStartAt); v != "" {
		at, err := load.ParseStartAt(v)
		if err != nil {
			return fmt.Errorf("slotest: %s: %w", EnvStartAt, err)
		}
		cfg.StartAt = at
		// Steps on a shared clock cannot be measured again; the gate's own
		// retries give way to the environment that shards it.
		cfg.StarvedRetries = 0
	}
	return nil
}

// fitRun fits the steps to the test's deadline. Steps with a shared start
// are never shortened: each shard's deadline differs, and shortened steps
// would no longer be the same schedule. The test fails instead when the
// last step's bound falls past the deadline.
func fitRun(t *testing.T, cfg *config) error {
	t.Helper()
	if cfg.StartAt.IsZero() {
		return fitDeadline(t, cfg)
	}
	deadline, ok := t.Deadline()
	if !ok {
		return nil
	}
	per := cfg.Warmup + cfg.Duration + cfg.DrainBound()
	end := cfg.StartAt.Add(time.Duration(max(len(cfg.Rates), 1)) * per)
	if end.After(deadline) {
		return fmt.Errorf("slotest: from %s the %d steps (%v each with warm-up and drain bound) end %v after the test's deadline; shards' steps cannot be shortened: raise -timeout",
			cfg.StartAt.UTC().Format(time.RFC3339), max(len(cfg.Rates), 1), per, end.Sub(deadline).Round(time.Second))
	}
	return nil
}

// shardDir keeps each shard's report apart in a shared report directory.
func shardDir(dir string, cfg config) string {
	if dir == "" || !cfg.Shard.Sharded() {
		return dir
	}
	return filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d", cfg.Shard.Index, cfg.Shard.Count))
}

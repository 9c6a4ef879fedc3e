package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
)

// shardFlags are run's flags for one shard of a schedule sent by several
// processes (docs/sharding.md).
type shardFlags struct {
	shard, startAt string
}

func (f *shardFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.shard, "shard", "", "send only shard I of N of every step's schedule (I from 0), e.g. 0/4: N processes with the same flags send the whole; needs --start-at and a URL --target")
	fs.StringVar(&f.startAt, "start-at", "", "start the first step at this instant (unix seconds or RFC 3339) and later ones at fixed offsets from it, so shards stay aligned")
}

// apply sets the shard and the start time in c.
func (f *shardFlags) apply(c *load.Plan) error {
	if f.shard != "" {
		s, err := load.ParseShard(f.shard)
		if err != nil {
			return fmt.Errorf("--shard: %w", err)
		}
		c.Shard = s
	}
	if f.startAt != "" {
		t, err := load.ParseStartAt(f.startAt)
		if err != nil {
			return fmt.Errorf("--start-at: %w", err)
		}
		c.StartAt = t
	}
	return nil
}

// shardExit is a shard's exit code: its share's own verdict is not the
// run's (a share lacks the samples the whole has, so too_few_samples is
// expected), only the merge's is. So a shard that wrote its whole report
// exits 0 whatever its verdict, and its pod counts as done; one cut short
// or not run keeps its code.
func shardExit(c load.Plan, code int, rep *report.Report, runErr error, stderr io.Writer) int {
	if !c.Shard.Sharded() || code == exitUsage || runErr != nil || rep.Partial {
		return code
	}
	fmt.Fprintf(stderr, "shard %s done: its verdict is the merged report's (llmslo merge)\n", c.Shard)
	return exitPass
}

package load

import (
	"slices"
	"testing"
	"time"

	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseShardAndStartAt(t *testing.T) {
	s, err := ParseShard(" 2/4 ")
	require.NoError(t, err)
	assert.Equal(t, Shard{Index: 2, Count: 4}, s)
	for _, bad := range []string{"4/4", "-1/4", "1/0", "1", "a/b", "1/2/3"} {
		_, err := ParseShard(bad)
		assert.Error(t, err, bad)
	}
	at, err := ParseStartAt("1767225600.25")
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 1, 1, 0, 0, 0, 250e6, time.UTC), at.UTC())
	at, err = ParseStartAt("2026-01-01T01:00:00+01:00")
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), at.UTC())
	_, err = ParseStartAt("tomorrow")
	assert.ErrorContains(t, err, "unix seconds or RFC 3339")
}

func TestShardsTogetherSendTheWholeSchedule(t *testing.T) {
	p := stepPlan{Workload: fixedWorkload(8, 2),
		Plan: Plan{Arrival: arrival.Spec{Kind: arrival.Poisson}, Warmup: time.Second, Duration: 3 * time.Second}}
	sched, err := p.schedule(20, 7)
	require.NoError(t, err)
	const first, n = 100, 3
	var offsets []time.Duration
	sent := map[int]int{} // workload index → slot offset position
	for i := range n {
		p.Shard = Shard{Index: i, Count: n}
		mine, w, f := p.shardSchedule(sched, first)
		assert.Equal(t, 0, f)
		for j, off := range mine {
			req := w.Request(f + j)
			k := req.Index - first
			require.Equal(t, i, k%n, "shard %d sends only its own arrivals", i)
			assert.Equal(t, sched[k], off, "request %d keeps its intended time", req.Index)
			assert.Equal(t, p.Workload.Request(req.Index).PromptIDs, req.PromptIDs, "request %d is the same request", req.Index)
			_, dup := sent[req.Index]
			require.False(t, dup, "request %d sent twice", req.Index)
			sent[req.Index] = k
		}
		offsets = append(offsets, mine...)
	}
	slices.Sort(offsets)
	assert.Equal(t, sched, offsets, "the shards' offsets are the whole schedule")
	assert.Len(t, sent, len(sched))
}

func TestShardConfigIsChecked(t *testing.T) {
	base := DefaultPlan()
	base.Rates, base.Target = []float64{2}, URLTarget{URL: "http://server:8000"}
	base.Shard, base.StartAt = Shard{Index: 0, Count: 2}, time.Now().Add(time.Minute)
	base.Fixture = plantest.MustFixture(t, "fixed:8:2")
	require.NoError(t, base.validate())

	dir, _ := smallWeka(t)
	sessions := plantest.MustFixture(t, dir)
	cases := map[string]func(c *Plan){
		"a session replay cannot be sharded yet":  func(c *Plan) { c.Fixture = sessions },
		"needs a start time shared by all shards": func(c *Plan) { c.StartAt = time.Time{} },
		"one shared server":                       func(c *Plan) { c.Target = simTarget(vllmsim.Config{}) },
		"compare the merged report":               func(c *Plan) { c.Baseline = &report.Report{} },
		"passed":                                  func(c *Plan) { c.StartAt = time.Now().Add(-3 * time.Second) },
		"the index must be in [0, 2)":             func(c *Plan) { c.Shard.Index = 2 },
		"cannot measure one again":                func(c *Plan) { c.StarvedRetries = 1 },
		"must not be negative":                    func(c *Plan) { c.Shard, c.StartAt, c.StarvedRetries = Shard{}, time.Time{}, -1 },
	}
	for want, doctor := range cases {
		c := base
		doctor(&c)
		assert.ErrorContains(t, c.validate(), want)
	}
}

func TestStepsStartAtFixedOffsetsFromTheSharedStart(t *testing.T) {
	at := time.Now().Add(time.Hour)
	s := &Measurement{plan: stepPlan{Plan: Plan{StartAt: at, DrainTimeout: 2 * time.Second}}}
	var starts []time.Time
	for _, d := range []time.Duration{5 * time.Second, 7 * time.Second, time.Second} {
		p := s.plan
		p.Warmup, p.Duration = time.Second, d
		require.NoError(t, s.nextStepStart(&p))
		starts = append(starts, p.StepStart)
	}
	assert.Equal(t, []time.Time{at, at.Add(8 * time.Second), at.Add(18 * time.Second)}, starts)

	replay := &Measurement{plan: stepPlan{Sessions: &SessionReplay{}, Plan: Plan{StartAt: at, Shard: Shard{Index: 0, Count: 2}}}}
	p := replay.plan
	assert.ErrorContains(t, replay.nextStepStart(&p), "a session replay cannot be sharded")

	late := &Measurement{plan: stepPlan{Plan: Plan{StartAt: time.Now().Add(-2 * time.Second)}}}
	p = late.plan
	assert.ErrorContains(t, late.nextStepStart(&p), "passed")
}

func TestSharedSaltIsTheSameForEveryShard(t *testing.T) {
	a := Plan{Salt: true, Seed: 3, StartAt: time.Unix(1767225600, 0), Shard: Shard{Index: 0, Count: 2}}
	b := a
	b.Shard.Index = 1
	assert.Equal(t, a.sharedSalt(), b.sharedSalt())
	assert.NotEmpty(t, a.sharedSalt())
	c := a
	c.StartAt = c.StartAt.Add(time.Second)
	assert.NotEqual(t, a.sharedSalt(), c.sharedSalt(), "another run gets fresh prompts")
	a.Salt = false
	assert.Empty(t, a.sharedSalt(), "salting off stays off")
}

package vllmsim

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

func TestParseDrift(t *testing.T) {
	at := time.Date(2026, 12, 5, 15, 0, 0, 0, time.UTC)
	good := []struct {
		in   string
		want Drift
	}{
		{"sine:10%:2m", Drift{Kind: DriftSine, Amplitude: 0.1, Period: 2 * time.Minute}},
		{"sine:0.2:90s", Drift{Kind: DriftSine, Amplitude: 0.2, Period: 90 * time.Second}},
		{"step:10%@2026-12-05T15:00:00Z", Drift{Kind: DriftStep, Amplitude: 0.1, At: at}},
	}
	for _, c := range good {
		d, err := ParseDrift(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want.Kind, d.Kind)
		assert.InDelta(t, c.want.Amplitude, d.Amplitude, 1e-12)
		assert.Equal(t, c.want.Period, d.Period)
		assert.True(t, c.want.At.Equal(d.At), c.in)
		again, err := ParseDrift(d.String())
		require.NoError(t, err, "String reads back: %s", d)
		assert.Equal(t, d.String(), again.String())
	}
	for _, in := range []string{"", "sine", "sine:10%", "sine:10%:-1m", "sine:0:1m", "sine:x:1m", "wave:10%:1m",
		"step:10%", "step:10%@yesterday", "step:2000%@2026-12-05T15:00:00Z"} {
		_, err := ParseDrift(in)
		assert.Error(t, err, in)
	}
	_, err := ParseServeArgs([]string{"--drift", "sine:ten:1m"})
	assert.ErrorContains(t, err, "--drift")
	cfg, err := ParseServeArgs([]string{"--drift", "sine:10%:1m"})
	require.NoError(t, err)
	assert.Equal(t, DriftSine, cfg.Drift.Kind)
	_, sim := VLLMArgs([]string{"--drift", "sine:10%:1m", "--max-num-seqs", "4", "--step-jitter", "5%"})
	assert.Equal(t, []string{"--drift", "sine:10%:1m", "--step-jitter", "5%"}, sim, "the simulator's flags: not in a vllm serve line")
	cfg, err = ParseServeArgs([]string{"--step-jitter", "5%"})
	require.NoError(t, err)
	assert.InDelta(t, 0.05, cfg.StepJitter, 1e-12)
	_, err = ParseServeArgs([]string{"--step-jitter", "150%"})
	assert.ErrorContains(t, err, "--step-jitter")
}

// The sine is at full speed at each multiple of its period since the
// epoch and at its slowest half a period later; the step slows from its
// moment on. Neither ever speeds a step up.
func TestDriftFactorFollowsTheWallClock(t *testing.T) {
	sine := Drift{Kind: DriftSine, Amplitude: 0.1, Period: time.Minute}
	epoch := time.Unix(0, 0).Add(1000 * time.Minute)
	assert.InDelta(t, 1.0, sine.Factor(epoch), 1e-12)
	assert.InDelta(t, 1.05, sine.Factor(epoch.Add(15*time.Second)), 1e-9)
	assert.InDelta(t, 1.1, sine.Factor(epoch.Add(30*time.Second)), 1e-12)
	for s := range 120 {
		f := sine.Factor(epoch.Add(time.Duration(s) * time.Second / 2))
		assert.True(t, f >= 1 && f <= 1.1+1e-12, "%v", f)
	}
	at := time.Now()
	step := Drift{Kind: DriftStep, Amplitude: 0.2, At: at}
	assert.Equal(t, 1.0, step.Factor(at.Add(-time.Nanosecond)))
	assert.InDelta(t, 1.2, step.Factor(at), 1e-12)
	assert.Equal(t, 1.0, Drift{}.Factor(at), "no drift")
}

// A server whose steps take 10 ms, slowed by half from a moment 300 ms
// into a stream: the gaps before it are the step's, those after half as
// long again.
func TestDriftSlowsTheStepsOfARunningServer(t *testing.T) {
	at := time.Now().Add(300 * time.Millisecond)
	srv := start(t, Config{Model: "m", Profile: engine.StepProfile{Name: "fixed-10ms", Fixed: 10 * time.Millisecond},
		NoFrontend: true, Drift: Drift{Kind: DriftStep, Amplitude: 0.5, At: at}})
	res := streamCompletion(t, srv.URL, map[string]any{"model": "m", "prompt": "hello", "max_tokens": 80, "ignore_eos": true})
	require.NoError(t, res.err)
	var before, after []time.Duration
	for i := 1; i < len(res.tokenTimes); i++ {
		g := res.tokenTimes[i].Sub(res.tokenTimes[i-1])
		switch {
		case res.tokenTimes[i].Before(at.Add(-20 * time.Millisecond)):
			before = append(before, g)
		case res.tokenTimes[i-1].After(at.Add(20 * time.Millisecond)):
			after = append(after, g)
		}
	}
	require.Greater(t, len(before), 10)
	require.Greater(t, len(after), 10)
	slices.Sort(before)
	slices.Sort(after)
	mb, ma := before[len(before)/2], after[len(after)/2]
	t.Logf("median gap %v before the step, %v after", mb, ma)
	assert.InDelta(t, 10, float64(mb)/1e6, 2)
	assert.InDelta(t, 15, float64(ma)/1e6, 2)
}

// A server whose steps take 10 ms, each up to half as long again drawn from
// its seed: its gaps lie between 10 and 15 ms, their median near 12.5.
func TestStepJitterSlowsEachStepByItsDraw(t *testing.T) {
	srv := start(t, Config{Model: "m", Profile: engine.StepProfile{Name: "fixed-10ms", Fixed: 10 * time.Millisecond},
		NoFrontend: true, StepJitter: 0.5, Seed: 3})
	res := streamCompletion(t, srv.URL, map[string]any{"model": "m", "prompt": "hello", "max_tokens": 80, "ignore_eos": true})
	require.NoError(t, res.err)
	var gaps []time.Duration
	for i := 1; i < len(res.tokenTimes); i++ {
		gaps = append(gaps, res.tokenTimes[i].Sub(res.tokenTimes[i-1]))
	}
	require.Greater(t, len(gaps), 50)
	slices.Sort(gaps)
	p10, p50 := gaps[len(gaps)/10], gaps[len(gaps)/2]
	t.Logf("gaps p10 %v, p50 %v, p90 %v", p10, p50, gaps[len(gaps)*9/10])
	assert.InDelta(t, 12.5, float64(p50)/1e6, 1.5, "the median draw, half way")
	assert.GreaterOrEqual(t, float64(p10)/1e6, 9.5, "never faster than the step")
	assert.Less(t, float64(p10)/1e6, 12.0, "draws spread from the step's own time up")
}

// A drift or jitter given in a Config, not through the flags, is checked
// as the flags are: none may speed a step up past its modelled time.
func TestAConfigsDriftAndJitterAreChecked(t *testing.T) {
	for _, c := range []Config{
		{Drift: Drift{Kind: DriftSine, Amplitude: -0.5, Period: time.Minute}},
		{Drift: Drift{Kind: DriftSine, Amplitude: 0.1}},
		{Drift: Drift{Kind: "wave", Amplitude: 0.1, Period: time.Minute}},
		{StepJitter: -0.2},
		{StepJitter: 1.5},
	} {
		_, err := New(c)
		assert.Error(t, err, "%+v", c)
	}
	s, err := New(Config{Drift: Drift{Kind: DriftStep, Amplitude: 0.1}, StepJitter: 0.05})
	require.NoError(t, err)
	s.Close()
}

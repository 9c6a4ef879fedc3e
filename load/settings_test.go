package load

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/vllmsim"
)

// Every refused setting comes back from Plan validation as a SettingError
// naming its Plan field, so that a face can call it by its own name.
func TestPlanValidationNamesTheRefusedField(t *testing.T) {
	for field, set := range map[string]func(*Plan){
		"Rates":                func(c *Plan) { c.Rates = []float64{2, math.NaN()} },
		"Duration":             func(c *Plan) { c.Duration = 0 },
		"Warmup":               func(c *Plan) { c.Warmup = -time.Second },
		"CancelRate":           func(c *Plan) { c.CancelRate = 1.5 },
		"CancelAfter":          func(c *Plan) { c.CancelAfter = time.Second },
		"ThinkTimeScale":       func(c *Plan) { c.ThinkTimeScale = math.Inf(1) },
		"MaxThink":             func(c *Plan) { c.MaxThink = -time.Second },
		"StarvedRetries":       func(c *Plan) { c.StarvedRetries = -1 },
		"FitMargin":            func(c *Plan) { c.FitMargin = math.NaN() },
		"BaselineTolerance":    func(c *Plan) { c.Baseline, c.BaselineTolerance = &report.Report{}, 0 },
		"ResetRunningRequests": func(c *Plan) { c.ResetRunningRequests, c.ResetPrefixCache = true, false },
	} {
		cfg := DefaultPlan()
		cfg.Target, cfg.Fixture = simTarget(vllmsim.Config{}), plantest.MustFixture(t, "fixed:8:2")
		require.NoError(t, cfg.Validate())
		set(&cfg)
		var se *SettingError
		require.ErrorAs(t, cfg.Validate(), &se, field)
		assert.Equal(t, field, se.Field)
	}
	cfg := DefaultPlan()
	cfg.Target, cfg.Fixture = simTarget(vllmsim.Config{}), plantest.MustFixture(t, "fixed:8:2")
	cfg.Rates = nil
	assert.EqualError(t, cfg.Validate(), "Rates is required, e.g. Rates 2,4,8")
	cfg.Arrival = arrival.Spec{Kind: arrival.Trace, Speed: 2}
	cfg.Fixture = plantest.MustFixture(t, "azure-conv-2023")
	assert.NoError(t, cfg.Validate(), "a trace at its own pace takes no rates")
}

// A face renames the field refused and every other field its message
// names; the renamed error still unwraps to the SettingError.
func TestNameSettingsCallsFieldsByTheFacesNames(t *testing.T) {
	err := (&Plan{CancelRate: 0.1, ThinkTimeScale: 1, Duration: time.Second, Rates: []float64{1}}).checkSettings()
	assert.EqualError(t, err, "CancelRate needs CancelAfter, e.g. CancelAfter 2s")
	named := NameSettings(err, map[string]string{"CancelRate": "--cancel-rate", "CancelAfter": "--cancel-after"})
	assert.EqualError(t, named, "--cancel-rate needs --cancel-after, e.g. --cancel-after 2s")
	var se *SettingError
	assert.ErrorAs(t, named, &se)
	assert.EqualError(t, NameSettings(&SettingError{Field: "Rates", Value: "0", Problem: "want more"}, nil), "Rates 0: want more")
	other := errors.New("the plan has no target")
	assert.Equal(t, other, NameSettings(other, map[string]string{"Rates": "--rates"}))
	assert.NoError(t, NameSettings(nil, nil))
}

// A custom arrival process (Plan.Process) replaces Arrival: the step sends
// at the offsets it returns, and the report names its arrival custom.
func TestACustomProcessGivesTheOffsetsSent(t *testing.T) {
	offsets := []time.Duration{0, 40 * time.Millisecond, 130 * time.Millisecond, 400 * time.Millisecond, 410 * time.Millisecond}
	var gotRate float64
	var gotWindow time.Duration
	cfg := DefaultPlan()
	cfg.Target, cfg.Fixture = simTarget(vllmsim.Config{}), plantest.MustFixture(t, "fixed:8:2")
	cfg.Rates, cfg.Warmup, cfg.Duration = []float64{3}, 0, 500*time.Millisecond
	cfg.Thresholds = quietThresholds()
	cfg.RequestsOut = filepath.Join(t.TempDir(), RequestsFile)
	cfg.Process = arrival.ProcessFunc(func(rate float64, d time.Duration, _ int64) ([]time.Duration, error) {
		gotRate, gotWindow = rate, d
		return offsets, nil
	})
	rep, err := Measure(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, 3.0, gotRate)
	assert.Equal(t, 500*time.Millisecond, gotWindow)
	require.Len(t, rep.Steps, 1)
	assert.Equal(t, "custom", rep.Steps[0].Arrival)
	assert.Equal(t, len(offsets), rep.Steps[0].Requests.Scheduled)

	f, err := os.Open(cfg.RequestsOut)
	require.NoError(t, err)
	defer f.Close()
	var intended []float64
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var line struct {
			IntendedS float64 `json:"intended_s"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line))
		intended = append(intended, line.IntendedS)
	}
	require.Len(t, intended, len(offsets))
	for i, o := range offsets {
		assert.InDelta(t, o.Seconds(), intended[i], 1e-6, "request %d", i)
	}
}

// A process that breaks its contract is refused before its step sends.
func TestACustomProcessMustKeepItsContract(t *testing.T) {
	for _, offs := range [][]time.Duration{{0, 20, 10}, {-1}, {time.Second}} {
		bad := arrival.ProcessFunc(func(float64, time.Duration, int64) ([]time.Duration, error) { return offs, nil })
		_, err := customSchedule(bad, 1, time.Second, 1)
		assert.ErrorContains(t, err, "Plan.Process", "%v", offs)
	}
	failing := arrival.ProcessFunc(func(float64, time.Duration, int64) ([]time.Duration, error) { return nil, errors.New("no") })
	_, err := customSchedule(failing, 1, time.Second, 1)
	assert.ErrorContains(t, err, "no")
}

// Think settings on a fixture without sessions would pace nothing: Plan
// validation refuses them for every face, naming the fixture field.
func TestThinkSettingsNeedAFixtureWithSessions(t *testing.T) {
	p := DefaultPlan()
	p.Fixture = plantest.MustFixture(t, "fixed:8:2")
	p.MaxThink = time.Second
	var se *SettingError
	require.ErrorAs(t, p.validateThink(), &se)
	assert.Equal(t, "MaxThink", se.Field)
	assert.Equal(t, "WithMaxThink 1s: paces the turns of a session replay; WithFixture fixed:8:2 has no sessions",
		NameSettings(se, map[string]string{"MaxThink": "WithMaxThink", "Fixture": "WithFixture"}).Error())
	p.MaxThink, p.ThinkTimeScale = 0, 2
	require.ErrorAs(t, p.validateThink(), &se)
	assert.Equal(t, "ThinkTimeScale", se.Field)
}

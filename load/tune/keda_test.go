package tune

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/vllmapi"
)

// hpaTolerance is the Horizontal Pod Autoscaler's default: it scales
// only when the metric lies more than 10% from its target.
const hpaTolerance = 1.1

// scaledObjectTrigger is one trigger of a ScaledObject, read back.
type scaledObjectTrigger struct {
	Query     string
	Threshold float64
}

func scaledObjectTriggers(t *testing.T, y string) []scaledObjectTrigger {
	t.Helper()
	var so struct {
		Spec struct {
			Triggers []struct {
				Metadata map[string]string `yaml:"metadata"`
			} `yaml:"triggers"`
		} `yaml:"spec"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(y), &so), y)
	var out []scaledObjectTrigger
	for _, tr := range so.Spec.Triggers {
		th, err := strconv.ParseFloat(tr.Metadata["threshold"], 64)
		require.NoError(t, err, "threshold of %s", tr.Metadata["query"])
		out = append(out, scaledObjectTrigger{Query: tr.Metadata["query"], Threshold: th})
	}
	return out
}

// triggerValue is what a trigger's query read on one replica during a
// step, from the step's scrapes of /metrics: running plus waiting
// averaged over the window; the waiting queue at its peak (if even that
// stays at the threshold, the trigger never fired); queue time's p95.
func triggerValue(t *testing.T, query string, srv vllmapi.ServerStats) float64 {
	t.Helper()
	switch {
	case strings.Contains(query, "num_requests_running") && strings.Contains(query, "num_requests_waiting"):
		return srv.MeanInSystem
	case strings.Contains(query, "num_requests_waiting"):
		return srv.MaxWaiting
	case strings.Contains(query, "request_queue_time_seconds"):
		if srv.QueueTime == nil {
			return 0
		}
		return srv.QueueTime.P95S
	}
	t.Fatalf("no reading for the query %s", query)
	return 0
}

// Protect's autoscaler triggers, applied: on the server Protect
// recommends (its admission limit, the batch capped at it), every trigger
// lies more than the autoscaler's tolerance above its threshold at 1.5×
// the knee, where a third of the load is shed, and below it at half the
// knee.
func TestKedaTriggersFireAtOverloadWithTheAdmissionLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plan := advicePlan(t, []float64{12, 20}, adviceSim...)
		rep, err := Sweep(context.Background(), plan, Search{Refine: 1})
		require.NoError(t, err)
		require.NotNil(t, rep.Capacity)
		p := protect(rep, rep.Target.Model)
		require.NotNil(t, p)
		require.NotEmpty(t, p.ScaledObject, p.Note)
		t.Logf("knee %s; %s (held %.1f)", render(rep.Capacity), p.Flag, p.HeldAtKnee)

		limit := strconv.Itoa(p.MaxNumQueuedReqs)
		seqs := strconv.Itoa(min(16, p.MaxNumQueuedReqs))
		args := []string{"--profile", "h100-llama3-8b", "--max-num-seqs", seqs, "--max-num-queued-reqs", limit}
		step := func(factor float64) report.StepReport {
			applied := advicePlan(t, []float64{RoundRate(factor * p.KneeRate)}, args...)
			if factor > 1 {
				applied.Overload = &verdict.OverloadSettings{QueuedReqs: p.MaxNumQueuedReqs}
			}
			got, err := load.Measure(context.Background(), applied)
			require.NoError(t, err)
			require.Len(t, got.Steps, 1)
			st := got.Steps[0]
			require.True(t, st.Server.MetricsAvailable, st.Server.Error)
			t.Logf("%.1f× the knee, %s: shed %d; in system %.2f on average (peak running %.0f, waiting %.0f); queue p95 %v",
				factor, st.Name, st.Requests.Shed, st.Server.MeanInSystem, st.Server.MaxRunning, st.Server.MaxWaiting, st.Server.QueueTime)
			return st
		}
		half, over := step(0.5), step(OverloadFactor)
		require.Positive(t, over.Requests.Shed, "1.5× the knee sheds with the limit")
		for _, tr := range scaledObjectTriggers(t, p.ScaledObject) {
			h, o := triggerValue(t, tr.Query, half.Server), triggerValue(t, tr.Query, over.Server)
			t.Logf("%s > %g: %.3g at half the knee, %.3g at 1.5×", tr.Query, tr.Threshold, h, o)
			assert.Greater(t, o, hpaTolerance*tr.Threshold, "%s fires at 1.5× the knee, beyond the autoscaler's tolerance", tr.Query)
			assert.Less(t, h, tr.Threshold/hpaTolerance, "%s stays quiet at half the knee", tr.Query)
		}
	})
}

// A report whose knee has no scrape average (written before it was
// recorded) reads the threshold by Little's law: achieved rate times
// mean latency.
func TestKedaThresholdFallsBackOnLittlesLaw(t *testing.T) {
	knee := report.StepReport{RateTarget: 10, RateAchieved: 10, Server: vllmapi.ServerStats{MetricsAvailable: true, MaxRunning: 6}}
	knee.E2EL.Mean = 800
	p := protect(&report.Report{Capacity: &report.Capacity{PassRate: 10}, Steps: []report.StepReport{knee}}, "")
	require.NotNil(t, p)
	assert.Equal(t, 6.0, p.InSystemThreshold, "three quarters of the 8 in the system by Little's law")
	assert.Contains(t, p.ScaledObject, "sum(vllm:num_requests_running) + sum(vllm:num_requests_waiting)")
}

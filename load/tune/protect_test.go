package tune

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/vllmapi"
)

// The trigger is YAML a user can apply: parsed back, it is a KEDA
// ScaledObject with one Prometheus trigger, on the requests in the
// system per replica, with the threshold read at the knee.
func TestProtectWritesAKEDAScaledObject(t *testing.T) {
	rep := &report.Report{Capacity: &report.Capacity{PassRate: 12, FailRate: 14}, Steps: []report.StepReport{
		{RateTarget: 12, Server: vllmapi.ServerStats{MetricsAvailable: true, MaxRunning: 16, MaxWaiting: 4, MeanInSystem: 12,
			QueueTime: &vllmapi.QueueTime{Count: 300, P95S: 0.5, MaxS: 0.8}}},
		{RateTarget: 14},
	}}
	p := protect(rep, "meta-llama/Llama-3.1-8B-Instruct")
	require.NotNil(t, p)
	assert.Equal(t, 20.0, p.HeldAtKnee)
	assert.Equal(t, 21, p.MaxNumQueuedReqs, "one above the 20 held at the knee")
	assert.Equal(t, "--max-num-queued-reqs 21", p.Flag)
	assert.Contains(t, p.WhyNotGPU, "busy at all")

	var so struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       struct {
			ScaleTargetRef struct{ Name string } `yaml:"scaleTargetRef"`
			Triggers       []struct {
				Type       string            `yaml:"type"`
				MetricType string            `yaml:"metricType"`
				Metadata   map[string]string `yaml:"metadata"`
			} `yaml:"triggers"`
		} `yaml:"spec"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(p.ScaledObject), &so), p.ScaledObject)
	assert.Equal(t, "keda.sh/v1alpha1", so.APIVersion)
	assert.Equal(t, "ScaledObject", so.Kind)
	assert.Equal(t, "vllm", so.Spec.ScaleTargetRef.Name)
	require.Len(t, so.Spec.Triggers, 1, "under the admission limit nothing waits: no trigger on the waiting queue or queue time")
	inSystem := so.Spec.Triggers[0]
	assert.Equal(t, "prometheus", inSystem.Type)
	assert.Equal(t, `sum(vllm:num_requests_running{model_name="meta-llama/Llama-3.1-8B-Instruct"}) + `+
		`sum(vllm:num_requests_waiting{model_name="meta-llama/Llama-3.1-8B-Instruct"})`, inSystem.Metadata["query"])
	assert.Equal(t, "9", inSystem.Metadata["threshold"], "three quarters of the 12 in the system at the knee, per replica")
	assert.Equal(t, 9.0, p.InSystemThreshold)
	assert.Equal(t, "AverageValue", inSystem.MetricType)
	for _, tr := range so.Spec.Triggers {
		assert.NotEmpty(t, tr.Metadata["serverAddress"])
		assert.NotContains(t, tr.Metadata["query"], "gpu")
	}
}

func TestProtectNeedsAKneeAndMetrics(t *testing.T) {
	assert.Nil(t, protect(&report.Report{Capacity: &report.Capacity{FailRate: 2}}, "m"), "no passing rate, no knee")
	p := protect(&report.Report{Capacity: &report.Capacity{PassRate: 2}, Steps: []report.StepReport{{RateTarget: 2}}}, "m")
	require.NotNil(t, p)
	assert.Zero(t, p.MaxNumQueuedReqs)
	assert.Contains(t, p.Note, "could not be read")
	assert.Equal(t, 4, verdict.QueuedLimit(2.5))
}

// Protect's limit below the one the server already has is said, not
// proposed silently; where the server's limit is what binds, Protect
// keeps it; one at or above it needs no word.
func TestProtectSaysWhenItsLimitIsBelowTheServers(t *testing.T) {
	args := []string{"--max-num-seqs", "16", "--max-num-queued-reqs", "12"}
	p := &report.Protect{HeldAtKnee: 10, MaxNumQueuedReqs: 11}
	keepServersLimit(p, args, verdict.BindCompute)
	assert.Contains(t, p.Note, "below the server's own --max-num-queued-reqs 12")
	assert.Equal(t, 11, p.MaxNumQueuedReqs)
	p = &report.Protect{HeldAtKnee: 4, MaxNumQueuedReqs: 5}
	keepServersLimit(p, args, verdict.BindAdmission)
	assert.Equal(t, 12, p.MaxNumQueuedReqs, "the limit that binds at the knee is kept")
	assert.Equal(t, "--max-num-queued-reqs 12", p.Flag)
	assert.Contains(t, p.Note, "kept the server's own --max-num-queued-reqs 12, not 5")
	p = &report.Protect{HeldAtKnee: 12, MaxNumQueuedReqs: 13}
	keepServersLimit(p, []string{"--max-num-queued-reqs", "12"}, verdict.BindCompute)
	assert.Empty(t, p.Note)
}

// The final line holds every flag tune kept and Protect recommends, as
// vLLM serve takes them: the simulator's own flags left out, a limit
// below --max-num-seqs matched by the batch cap (with why). A server
// llmslo did not start gets the flags to add or change, and the line
// says its other flags could not be seen.
func TestTheFinalLineIsOneVLLMTakes(t *testing.T) {
	final := &report.Report{Steps: []report.StepReport{{Server: vllmapi.ServerStats{MaxNumSeqs: 16}}}}
	sim := &tuneLoop{plan: load.Plan{Target: simArgsTarget(t, "--profile", "h100-llama3-8b", "--max-num-seqs", "8")},
		base: []string{"--profile", "h100-llama3-8b", "--max-num-seqs", "8"}, t: &report.Tune{}, final: final,
		kept: []Change{{Flag: "--max-num-seqs", Value: "16"}}}
	sim.deployLine("m", &report.Protect{MaxNumQueuedReqs: 12})
	assert.Equal(t, "vllm serve m --max-num-queued-reqs 12 --max-num-seqs 12", sim.t.Command)
	assert.Equal(t, []string{"--profile", "h100-llama3-8b"}, sim.t.SimulatorOnly)
	assert.Contains(t, sim.t.CommandNote, "--max-num-seqs 16 lowered to 12, the admission limit")

	sim.t = &report.Tune{}
	sim.deployLine("m", &report.Protect{MaxNumQueuedReqs: 20})
	assert.Equal(t, "vllm serve m --max-num-seqs 16 --max-num-queued-reqs 20", sim.t.Command, "a limit above the cap lets requests wait")

	url := &tuneLoop{plan: load.Plan{Target: load.URLTarget{}}, t: &report.Tune{}, final: final}
	url.deployLine("m", &report.Protect{MaxNumQueuedReqs: 12})
	assert.Equal(t, "add or change on the server: --max-num-queued-reqs 12 --max-num-seqs 12", url.t.Command)
	assert.NotContains(t, url.t.Command, "vllm serve")
	assert.Contains(t, url.t.CommandNote, "other flags could not be seen")

	// A limit the overload gate refused on its last try is no advice.
	sim.t = &report.Tune{OverloadGate: &report.OverloadGate{Pass: false, Message: "overload gate failed: admitted requests: tpot p50 24 ms > 19 ms"}}
	sim.deployLine("m", &report.Protect{MaxNumQueuedReqs: 9})
	assert.Equal(t, "vllm serve m --max-num-seqs 16", sim.t.Command)
	assert.Contains(t, sim.t.CommandNote, "no admission limit in the line: with --max-num-queued-reqs 9 the overload gate failed")
}

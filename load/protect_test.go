package load

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/vllmapi"
)

// The trigger is YAML a user can apply: parsed back, it is a KEDA
// ScaledObject with a Prometheus trigger on the waiting queue and one on
// queue time's p95, each with the threshold read at the knee.
func TestProtectWritesAKEDAScaledObject(t *testing.T) {
	rep := &report.Report{Capacity: &report.Capacity{PassRate: 12, FailRate: 14}, Steps: []report.StepReport{
		{RateTarget: 12, Server: vllmapi.ServerStats{MetricsAvailable: true, MaxRunning: 16, MaxWaiting: 4,
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
	require.Len(t, so.Spec.Triggers, 2)
	waiting, queue := so.Spec.Triggers[0], so.Spec.Triggers[1]
	assert.Equal(t, "prometheus", waiting.Type)
	assert.Equal(t, `sum(vllm:num_requests_waiting{model_name="meta-llama/Llama-3.1-8B-Instruct"})`, waiting.Metadata["query"])
	assert.Equal(t, "4", waiting.Metadata["threshold"], "the waiting queue at the knee, per replica")
	assert.Equal(t, "AverageValue", waiting.MetricType)
	assert.Equal(t, "prometheus", queue.Type)
	assert.Equal(t, `histogram_quantile(0.95, sum by (le) (rate(vllm:request_queue_time_seconds_bucket{model_name="meta-llama/Llama-3.1-8B-Instruct"}[2m])))`,
		queue.Metadata["query"])
	assert.Equal(t, "0.5", queue.Metadata["threshold"])
	assert.Equal(t, "Value", queue.MetricType, "a quantile does not add up over replicas")
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

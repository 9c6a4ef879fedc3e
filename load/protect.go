package load

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
)

// WhyNotGPUUtilization is why Protect never scales on GPU utilisation.
const WhyNotGPUUtilization = "GPU utilisation is high whenever the server is busy at all: it counts the time a kernel ran, so a batch of one " +
	"reads nearly as busy as a server at its knee, and it cannot say that arrivals outpace the server. The waiting queue and the time " +
	"spent in it rise only when they do."

// protect reads the lesson's last step from a sweep's knee: an admission
// limit a little above what the server held there (running plus
// waiting), and an autoscaler trigger on the waiting queue and on queue
// time with thresholds read there. It returns nil when the sweep found no
// passing rate.
func protect(rep *report.Report, model string) *report.Protect {
	c := rep.Capacity
	if c == nil || c.PassRate == 0 {
		return nil
	}
	var knee *report.StepReport
	for i := range rep.Steps {
		if rep.Steps[i].RateTarget == c.PassRate {
			knee = &rep.Steps[i]
		}
	}
	if knee == nil {
		return nil
	}
	p := &report.Protect{KneeRate: c.PassRate, WhyNotGPU: WhyNotGPUUtilization}
	srv := knee.Server
	if !srv.MetricsAvailable {
		p.Note = "the server's /metrics could not be read at the knee: no admission limit or trigger can be derived"
		return p
	}
	// The once-a-second samples can miss the peak: the mean in the system
	// by Little's law is a floor under it.
	p.HeldAtKnee = max(srv.MaxRunning+srv.MaxWaiting, verdict.InSystem(knee))
	p.MaxNumQueuedReqs = verdict.QueuedLimit(p.HeldAtKnee)
	p.Flag = fmt.Sprintf("--max-num-queued-reqs %d", p.MaxNumQueuedReqs)
	p.WaitingThreshold = max(1, srv.MaxWaiting)
	if q := srv.QueueTime; q != nil && q.Count > 0 {
		p.QueueTimeP95S = q.P95S
	} else {
		p.Note = "the server reported no queue time at the knee (vllm:request_queue_time_seconds): the trigger watches the waiting queue only"
	}
	y, err := ScaledObject(model, p.WaitingThreshold, p.QueueTimeP95S)
	if err != nil {
		p.Note = err.Error()
		return p
	}
	p.ScaledObject = y
	return p
}

// keda is the part of KEDA's ScaledObject the trigger needs.
type keda struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		ScaleTargetRef struct {
			Name string `yaml:"name"`
		} `yaml:"scaleTargetRef"`
		MinReplicaCount int           `yaml:"minReplicaCount"`
		MaxReplicaCount int           `yaml:"maxReplicaCount"`
		Triggers        []kedaTrigger `yaml:"triggers"`
	} `yaml:"spec"`
}

type kedaTrigger struct {
	Type       string            `yaml:"type"`
	MetricType string            `yaml:"metricType,omitempty"`
	Metadata   map[string]string `yaml:"metadata"`
}

// PrometheusAddress is where the ScaledObject's triggers ask, to be
// edited to the cluster's Prometheus.
const PrometheusAddress = "http://prometheus-operated.monitoring.svc:9090"

// ScaledObject writes a KEDA ScaledObject that scales a Deployment named
// "vllm" on two Prometheus triggers: the waiting queue per replica
// (AverageValue: KEDA divides the sum by the threshold), and the p95 of
// queue time over the last two minutes (Value: a quantile does not add
// up over replicas). queueP95 of 0 leaves the second out.
func ScaledObject(model string, waiting, queueP95 float64) (string, error) {
	var k keda
	k.APIVersion, k.Kind = "keda.sh/v1alpha1", "ScaledObject"
	k.Metadata.Name = "vllm"
	k.Spec.ScaleTargetRef.Name = "vllm"
	k.Spec.MinReplicaCount, k.Spec.MaxReplicaCount = 1, 8
	sel := ""
	if model != "" {
		sel = fmt.Sprintf(`{model_name=%q}`, model)
	}
	k.Spec.Triggers = append(k.Spec.Triggers, kedaTrigger{Type: "prometheus", MetricType: "AverageValue", Metadata: map[string]string{
		"serverAddress": PrometheusAddress,
		"query":         fmt.Sprintf("sum(vllm:num_requests_waiting%s)", sel),
		"threshold":     strconv.FormatFloat(waiting, 'g', 4, 64),
	}})
	if queueP95 > 0 {
		k.Spec.Triggers = append(k.Spec.Triggers, kedaTrigger{Type: "prometheus", MetricType: "Value", Metadata: map[string]string{
			"serverAddress": PrometheusAddress,
			"query":         fmt.Sprintf("histogram_quantile(0.95, sum by (le) (rate(vllm:request_queue_time_seconds_bucket%s[2m])))", sel),
			"threshold":     strconv.FormatFloat(queueP95, 'g', 4, 64),
		}})
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(k); err != nil {
		return "", fmt.Errorf("write the ScaledObject: %w", err)
	}
	return b.String(), enc.Close()
}

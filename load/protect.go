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
	"reads nearly as busy as a server at its knee, and it cannot say that arrivals outpace the server. Requests in the system, running " +
	"plus waiting, fill to the admission limit when they do."

// protect reads the lesson's last step from a sweep's knee: an admission
// limit a little above what the server held there (running plus
// waiting), and an autoscaler trigger on the requests in the system per
// replica, with the threshold read there. It returns nil when the sweep
// found no passing rate.
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
	// The threshold is three quarters of what the knee held on average,
	// read with the trigger's own instrument, the gauges' mean over the
	// knee's scrapes (Little's law where a report has none). Past the
	// knee the limit sheds each burst, so running plus waiting averages a
	// little under the knee's own level: at the knee's level the trigger
	// could stay within the autoscaler's 10% tolerance while a third is
	// shed. Three quarters also scales before the knee, as a new replica
	// takes minutes to start.
	const headroom = 0.75
	held := srv.MeanInSystem
	if held <= 0 {
		held = verdict.InSystem(knee)
	}
	p.InSystemThreshold = max(1, float64(int(headroom*held*10+0.5))/10)
	y, err := ScaledObject(model, p.InSystemThreshold)
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
// "vllm" on one Prometheus trigger: the requests in the system, running
// plus waiting, per replica (AverageValue: KEDA divides the sum by the
// threshold). Under an admission limit nothing waits, so the waiting
// queue and queue time stay quiet at any load; running plus waiting
// fills to the limit past the knee (docs/tuning.md).
func ScaledObject(model string, inSystem float64) (string, error) {
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
		"query":         fmt.Sprintf("sum(vllm:num_requests_running%s) + sum(vllm:num_requests_waiting%s)", sel, sel),
		"threshold":     strconv.FormatFloat(inSystem, 'g', 4, 64),
	}})
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(k); err != nil {
		return "", fmt.Errorf("write the ScaledObject: %w", err)
	}
	return b.String(), enc.Close()
}

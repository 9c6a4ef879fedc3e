package verdict

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/vllmapi"
)

func TestBindingRules(t *testing.T) {
	failing := func(srv vllmapi.ServerStats, hazards ...string) *report.StepReport {
		s := &report.StepReport{Verdict: report.VerdictFail, Server: srv,
			SLO: []report.SLOResult{{Metric: "ttft", Percentile: 95, Pass: false}}}
		for _, h := range hazards {
			s.Hazards = append(s.Hazards, report.Hazard{Kind: h})
		}
		return s
	}
	srv := vllmapi.ServerStats{MetricsAvailable: true, MaxRunning: 8, RunningAtMaxShare: 0.8, MaxWaiting: 12, KVCacheUsageMax: 0.3}
	assert.Equal(t, BindMaxNumSeqs, Binding(failing(srv), 8).Kind)
	assert.Equal(t, BindMaxNumSeqs, Binding(failing(srv), 0).Kind, "the plateau stands in for an unknown cap")
	assert.Equal(t, BindClient, Binding(failing(srv, HazardClientSaturation), 8).Kind, "a late client is named first")

	kv := vllmapi.ServerStats{MetricsAvailable: true, MaxRunning: 5, RunningAtMaxShare: 0.3, MaxWaiting: 4, KVCacheUsageMax: 0.98, Preemptions: 7}
	assert.Equal(t, BindKVCache, Binding(failing(kv), 256).Kind)

	itl := failing(vllmapi.ServerStats{MetricsAvailable: true, MaxRunning: 3, KVCacheUsageMax: 0.1})
	itl.SLO = []report.SLOResult{{Metric: "ttft", Percentile: 95, Pass: true}, {Metric: "itl", Percentile: 99, Pass: false}}
	assert.Equal(t, BindMaxNumBatchedTokens, Binding(itl, 256).Kind)

	busy := failing(vllmapi.ServerStats{MetricsAvailable: true, MaxRunning: 90, RunningAtMaxShare: 0.1, KVCacheUsageMax: 0.1})
	assert.Equal(t, BindCompute, Binding(busy, 256).Kind)

	shedding := failing(vllmapi.ServerStats{MetricsAvailable: true, MaxRunning: 12, RunningAtMaxShare: 0.9, KVCacheUsageMax: 0.1})
	shedding.Requests = report.RequestCounts{Sent: 200, Completed: 171, Shed: 29}
	shedding.SLO = append(shedding.SLO, report.SLOResult{Metric: "error_rate", MaxRate: 0.01, Observed: 0.145, Pass: false})
	b := Binding(shedding, 16)
	assert.Equal(t, BindAdmission, b.Kind, "503s from the server's own limit bind admission, not compute")
	assert.Contains(t, b.Evidence, "refused 29 of 200")
	assert.Contains(t, b.Flag, "raise --max-num-queued-reqs")
	shedding.Server = vllmapi.ServerStats{}
	assert.Equal(t, BindAdmission, Binding(shedding, 16).Kind, "the client sees the 503s without the server's metrics")

	assert.Nil(t, Binding(&report.StepReport{Verdict: report.VerdictPass}, 8), "a passing step binds nothing")
	assert.Nil(t, Binding(failing(vllmapi.ServerStats{}), 8), "no metrics, no claim")
}

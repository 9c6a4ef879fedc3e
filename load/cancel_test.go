package load

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/engine"
)

// simMetric reads one series of the simulator's /metrics: the sum over
// the series of name whose label has the value (any, when label is empty).
func simMetric(t *testing.T, url, name, label, value string) float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	require.NoError(t, err)
	sum := 0.0
	for _, m := range fams[name].GetMetric() {
		match := label == ""
		for _, l := range m.GetLabel() {
			match = match || l.GetName() == label && l.GetValue() == value
		}
		if match {
			sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return sum
}

// With 30% of requests drawn for cancellation and 20% failed by the
// server, the drawn requests that the server did not fail first are
// abandoned and counted apart: the error rate is the server's 20%, judged
// on the requests the server was left to finish, and the latency
// histograms hold the completed requests only.
func TestPlannedCancellationsAreCountedApart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := virtualEngine(t, pacedConfig(20*time.Millisecond, 10*time.Millisecond, vllmsim.Faults{ErrorRate: 0.2}))
		p := constantPlan(t, c, 100, 2*time.Second, 8, 20, "ttft.p50<=1s")
		inVirtualTime(&p)
		p.Cancel = dispatch.CancelPlan{Rate: 0.3, After: 100 * time.Millisecond, Seed: 5} // requests last 210 ms
		lines := recordLines(t, &p)
		rep, err := runPlan(context.Background(), p)
		require.NoError(t, err)
		s := rep.Steps[0]
		const n = 200
		require.Equal(t, n, s.Requests.Sent)

		drawn, drawnFailed := 0, 0
		for _, r := range lines() {
			failed := r.Outcome == "http_500"
			if p.Cancel.Abandons(r.Index) {
				drawn++
				if failed {
					drawnFailed++
				}
				assert.Contains(t, []string{"abandoned", "http_500"}, r.Outcome, "drawn request %d", r.Index)
			} else {
				assert.Contains(t, []string{observe.OutcomeOK, "http_500"}, r.Outcome, "request %d was not drawn", r.Index)
			}
		}
		sd := math.Sqrt(n * 0.3 * 0.7)
		assert.InDelta(t, n*0.3, drawn, 3.3*sd, "the draw's fraction lies in its binomial interval")
		assert.Equal(t, drawn-drawnFailed, s.Requests.Abandoned, "a drawn request the server failed first is a failure")
		assert.Equal(t, n, s.Requests.Completed+s.Requests.Failed+s.Requests.Abandoned)
		assert.Equal(t, s.Requests.Failed, s.Errors["http_500"])
		assert.NotContains(t, s.Errors, string(client.ClassAbandoned), "an abandoned request is no error")

		judged := n - s.Requests.Abandoned
		assert.InDelta(t, float64(s.Requests.Failed)/float64(judged), s.ErrorRate(), 1e-12)
		lo, hi := stats.WilsonInterval(int64(s.Requests.Failed), int64(judged), 0.999)
		assert.True(t, lo <= 0.2 && 0.2 <= hi, "error rate %.3f [%.3f, %.3f]: the server's 20%%", s.ErrorRate(), lo, hi)
		assert.Equal(t, int64(judged), sloResult(t, &s, report.MetricErrorRate).Samples)

		assert.Equal(t, int64(s.Requests.Completed), s.TTFT.Count, "abandoned requests stay out of TTFT, first token or not")
		assert.Equal(t, int64(s.Requests.Completed), s.E2EL.Count)
		e2el := s.Histograms[report.MetricE2EL]
		assert.Equal(t, e2el.Count(), e2el.CountAbove(200*time.Millisecond), "no E2EL was cut short at 100 ms")
		assert.InDelta(t, float64(s.Requests.Good)/float64(n-s.Requests.Abandoned), s.Goodput, 1e-12,
			"goodput leaves the abandoned requests out of its denominator")
	})
}

// recordLines makes the plan write per-request records into memory; the
// returned function closes them and decodes the lines.
func recordLines(t *testing.T, p *stepPlan) func() []observe.RequestRecord {
	t.Helper()
	var buf bytes.Buffer
	p.Records = observe.NewRecords(&buf)
	t.Cleanup(func() { _ = p.Records.Close() })
	return func() []observe.RequestRecord {
		require.NoError(t, p.Records.Close())
		var out []observe.RequestRecord
		for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
			var r observe.RequestRecord
			require.NoError(t, json.Unmarshal(line, &r), "%s", line)
			out = append(out, r)
		}
		return out
	}
}

// The simulator sees a planned cancel as vLLM sees a user leaving: the
// request is aborted, its slot and KV blocks freed. Requests that would
// take 10 s each are all gone from the server a moment after the step.
func TestAbandonedRequestsAreAbortedByTheServer(t *testing.T) {
	srv := simtest.Start(t, vllmsim.Config{Model: "m",
		Profile: engine.StepProfile{Name: "10ms-steps", Fixed: 10 * time.Millisecond}})
	p := constantPlan(t, engineClient(t, srv.URL), 20, time.Second, 8, 1000, "error_rate<=1%")
	p.Cancel = dispatch.CancelPlan{Rate: 1, After: 150 * time.Millisecond}
	t0 := time.Now()
	rep, err := runPlan(context.Background(), p)
	require.NoError(t, err)
	s := rep.Steps[0]
	assert.Equal(t, 20, s.Requests.Abandoned, "%+v %v", s.Requests, s.Errors)
	assert.Zero(t, s.Requests.Completed)
	assert.Zero(t, s.ErrorRate())

	require.Eventually(t, func() bool {
		return simMetric(t, srv.URL, "vllm:request_success_total", "finished_reason", "abort") == 20 &&
			simMetric(t, srv.URL, "vllm:num_requests_running", "", "") == 0 &&
			simMetric(t, srv.URL, "vllm:kv_cache_usage_perc", "", "") == 0
	}, 2*time.Second, 10*time.Millisecond, "the server aborted every abandoned request and freed its blocks")
	assert.Less(t, time.Since(t0), 5*time.Second, "long before the 10 s the requests would have run")
	assert.Zero(t, simMetric(t, srv.URL, "vllm:request_success_total", "finished_reason", "length"))
}

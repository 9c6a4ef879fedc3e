package vllmsim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
	"github.com/llmslo/llmslo/vllmsim/wire"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func start(t testing.TB, cfg Config) *Server {
	t.Helper()
	s := NewServer(cfg)
	t.Cleanup(s.Close)
	return s
}

// streamResult is what a raw SSE client saw.
type streamResult struct {
	status     int
	tokens     int
	sent       time.Time
	tokenTimes []time.Time
	usage      *wire.Usage
	done       bool
	err        error
	body       string // the body of a non-200 answer
}

func (r streamResult) ttft() time.Duration { return r.tokenTimes[0].Sub(r.sent) }

func (r streamResult) tpot() time.Duration {
	n := len(r.tokenTimes)
	return r.tokenTimes[n-1].Sub(r.tokenTimes[0]) / time.Duration(n-1)
}

// streamCompletion posts a streaming completion and timestamps every event
// that carries text.
func streamCompletion(t testing.TB, url string, body map[string]any) streamResult {
	t.Helper()
	body["stream"] = true
	b, _ := json.Marshal(body)
	res := streamResult{sent: time.Now()}
	resp, err := http.Post(url+"/v1/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		res.err = err
		return res
	}
	defer resp.Body.Close()
	res.status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(resp.Body)
		res.body = string(raw)
		return res
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data: ") {
			continue
		}
		data := strings.TrimPrefix(line, "data: ")
		if data == "[DONE]" {
			res.done = true
			continue
		}
		var chunk struct {
			Choices []struct {
				Text string `json:"text"`
			} `json:"choices"`
			Usage *wire.Usage `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			res.err = fmt.Errorf("bad chunk %q: %w", data, err)
			return res
		}
		if chunk.Usage != nil {
			res.usage = chunk.Usage
		}
		if len(chunk.Choices) > 0 && chunk.Choices[0].Text != "" {
			res.tokens++
			res.tokenTimes = append(res.tokenTimes, time.Now())
		}
	}
	res.err = sc.Err()
	return res
}

func postJSON(t testing.TB, url string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case string:
		rd = strings.NewReader(b)
	default:
		raw, _ := json.Marshal(b)
		rd = bytes.NewReader(raw)
	}
	resp, err := http.Post(url, "application/json", rd)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

// scrape reads /metrics with the Prometheus text parser.
func scrape(t testing.TB, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return fams
}

// value is the sum over the family's series (for histograms, the count).
func value(fams map[string]*dto.MetricFamily, name string) float64 {
	f, ok := fams[name]
	if !ok {
		return -1
	}
	var v float64
	for _, m := range f.Metric {
		switch {
		case m.Counter != nil:
			v += m.Counter.GetValue()
		case m.Gauge != nil:
			v += m.Gauge.GetValue()
		case m.Histogram != nil:
			v += float64(m.Histogram.GetSampleCount())
		}
	}
	return v
}

func textPrompt(salt string, words int) string {
	var b strings.Builder
	for i := range words {
		fmt.Fprintf(&b, "%s%d ", salt, i)
	}
	return b.String()
}

// fastProfile is a profile with short, known steps for tests over HTTP.
var fastProfile = engine.StepProfile{Name: "test-fast", Fixed: 2 * time.Millisecond, PerToken: time.Microsecond}

func metricValue(fams map[string]*dto.MetricFamily, name string) float64 { return value(fams, name) }

// hasLabel reports whether a series carries label=val.
func hasLabel(m *dto.Metric, label, val string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == label && l.GetValue() == val {
			return true
		}
	}
	return false
}

// hasSeries reports whether family name has a series with label=val whose
// value is want (any value when want is negative).
func hasSeries(fams map[string]*dto.MetricFamily, name, label, val string, want float64) bool {
	f, ok := fams[name]
	if !ok {
		return false
	}
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() != label || l.GetValue() != val {
				continue
			}
			if want < 0 {
				return true
			}
			var v float64
			switch {
			case m.Counter != nil:
				v = m.Counter.GetValue()
			case m.Gauge != nil:
				v = m.Gauge.GetValue()
			case m.Histogram != nil:
				v = float64(m.Histogram.GetSampleCount())
			}
			return v == want
		}
	}
	return false
}

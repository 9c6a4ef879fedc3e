package load

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/vllmsim"
)

// readRequestsFile decodes a requests file, one record per line.
func readRequestsFile(t *testing.T, path string) []observe.RequestRecord {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []observe.RequestRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r observe.RequestRecord
		dec := json.NewDecoder(bytesReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&r), "%s", sc.Text())
		out = append(out, r)
	}
	require.NoError(t, sc.Err())
	return out
}

// medianAbs is the median of |x − want| over xs, in milliseconds.
func medianAbs(xs []float64, want float64) float64 {
	d := make([]float64, len(xs))
	for i, x := range xs {
		d[i] = math.Abs(x - want)
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// minAbs is the least |x − want| over xs, in milliseconds.
func minAbs(xs []float64, want float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = min(m, math.Abs(x-want))
	}
	return m
}

// Against a server whose TTFT is 50 ms and ITL 60 ms exactly, the records
// file holds one line per request, warm-up included, whose times give
// those figures to the millisecond and whose tokens are exact; requests
// abandoned at 140 ms hold the two tokens that came before the cut.
//
// The machine is shared, so a time may come late, never early: the server
// paces from the request's arrival, after the send, and timers fire late.
// TTFT, the cut and the gaps between tokens are checked on their least
// delayed request to the millisecond, the gaps also on their median.
func TestRequestRecordsGiveTheServersTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	const ttft, itl, after = 50.0, 60.0, 140.0 // ms; tokens at 50, 110, 170, ...: 30 ms either side of the cut
	srv := pacedSim(t, ttft*time.Millisecond, itl*time.Millisecond, vllmsim.Faults{})
	path := filepath.Join(t.TempDir(), "out", "requests.jsonl")
	cfg := DefaultPlan()
	cfg.Target, cfg.Fixture, cfg.Arrival = URLTarget{URL: srv.URL}, plantest.MustFixture(t, "fixed:8:6"), plantest.MustArrival(t, "constant")
	cfg.Rates, cfg.Duration, cfg.Warmup = []float64{10}, time.Second, 500*time.Millisecond
	cfg.SLOs = plantest.MustSLOs(t, "ttft.p50<=1s")
	cfg.Thresholds.Off = []string{"too_few_samples", "client_saturation"}
	cfg.CancelRate, cfg.CancelAfter = 0.4, after*time.Millisecond
	cfg.RequestsOut = path
	rep, err := Measure(context.Background(), cfg)
	require.NoError(t, err)
	s := rep.Steps[0]

	lines := readRequestsFile(t, path)
	require.Len(t, lines, 15, "one line per request: 5 of warm-up, 10 measured")
	var firstMs, spanMs, cutMs []float64
	abandoned := 0
	for _, r := range lines {
		assert.Equal(t, observe.RecordsVersion, r.V)
		assert.Equal(t, "rate=10", r.Step)
		assert.InDelta(t, float64(r.Index)/10, r.IntendedS, 1e-6, "constant arrivals: request %d due at %d/10 s", r.Index, r.Index)
		assert.Equal(t, r.IntendedS < 0.5, r.Warmup, "request %d", r.Index)
		assert.Empty(t, r.Session+r.Agent)
		assert.Zero(t, r.Turn)
		assert.Equal(t, 8, r.InputTokens)
		require.NotNil(t, r.SentS)
		require.NotNil(t, r.FirstTokenS, "request %d", r.Index)
		require.NotNil(t, r.DoneS)
		assert.GreaterOrEqual(t, *r.SentS, r.IntendedS)
		firstMs = append(firstMs, 1000*(*r.FirstTokenS-*r.SentS))
		if cfg.cancelPlan().Abandons(r.Index) {
			abandoned++
			assert.Equal(t, "abandoned", r.Outcome, "request %d", r.Index)
			assert.Equal(t, 2, r.OutputTokens, "request %d: the tokens at 50 and 110 ms came before the cut", r.Index)
			cutMs = append(cutMs, 1000*(*r.DoneS-r.IntendedS))
			continue
		}
		assert.Equal(t, observe.OutcomeOK, r.Outcome, "request %d", r.Index)
		assert.Equal(t, 6, r.OutputTokens)
		spanMs = append(spanMs, 1000*(*r.LastTokenS-*r.FirstTokenS))
		assert.GreaterOrEqual(t, *r.DoneS, *r.LastTokenS)
	}
	require.NotEmpty(t, cutMs)
	require.NotEmpty(t, spanMs)
	// From the send, the first token also waits for the request's trip to
	// the server, which paces from its arrival. The race detector slows
	// the client and the server alike: a few milliseconds more.
	tol := 1.0
	if raceEnabled {
		tol = 3
	}
	assert.InDelta(t, ttft+tol/2, slices.Min(firstMs), tol/2, "first token − send: %v ms", firstMs)
	// The cut fires on a runtime timer, which an idle process's poller
	// wakes in whole milliseconds: up to 1 ms late, never early.
	assert.InDelta(t, after+(tol+1)/2, slices.Min(cutMs), (tol+1)/2, "cut − intended: %v ms", cutMs)
	// The gaps: the least disturbed request to the millisecond; the median
	// within a tenth of a gap, since a neighbour's load moves each token
	// by a few milliseconds while a wrong definition moves every span by
	// a gap or more.
	assert.Less(t, minAbs(spanMs, 5*itl), tol, "last − first token over 5 gaps: %v ms", spanMs)
	assert.Less(t, medianAbs(spanMs, 5*itl), itl/10, "last − first token over 5 gaps: %v ms", spanMs)

	measuredAbandoned := 0
	for _, r := range lines {
		if !r.Warmup && r.Outcome == "abandoned" {
			measuredAbandoned++
		}
	}
	assert.Equal(t, measuredAbandoned, s.Requests.Abandoned, "the report counts the measured window's")
	assert.Equal(t, int64(s.Requests.Completed), s.TTFT.Count)
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

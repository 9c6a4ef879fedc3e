package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// uniformMillis is a histogram of 1, 2, …, n milliseconds in shuffled order.
func uniformMillis(n int) *Histogram {
	h := NewHistogram()
	for _, v := range rand.New(rand.NewPCG(3, 4)).Perm(n) {
		h.Record(time.Duration(v+1) * time.Millisecond)
	}
	return h
}

func TestHistogramPercentilesOfUniformData(t *testing.T) {
	h := uniformMillis(10_000)
	for _, p := range []float64{0, 1, 10, 50, 90, 95, 99, 99.9, 99.99, 100} {
		// Nearest rank: the ceil(p/100·n)-th value, which is that many ms.
		rank := max(1, int64(math.Ceil(p/100*10_000-1e-9)))
		want := time.Duration(rank) * time.Millisecond
		got := h.Quantile(p)
		if got < want || float64(got-want) > 0.001*float64(want) {
			t.Errorf("p%v = %v, want %v within 0.1%% and not below", p, got, want)
		}
	}
	if got := h.Count(); got != 10_000 {
		t.Errorf("Count = %d", got)
	}
	if got, want := h.Mean(), 5000500*time.Microsecond; got != want {
		t.Errorf("Mean = %v, want exactly %v", got, want)
	}
	if got := h.Max(); got != 10*time.Second {
		t.Errorf("Max = %v, want exactly 10s", got)
	}
}

func TestHistogramQuantilesAgainstSortedData(t *testing.T) {
	// Log-normal latencies spanning µs to minutes: every quantile is within
	// 0.1% above the exact nearest-rank order statistic.
	rng := rand.New(rand.NewPCG(5, 6))
	h := NewHistogram()
	data := make([]time.Duration, 20_000)
	for i := range data {
		data[i] = time.Duration(math.Exp(rng.NormFloat64()*3+11)) * time.Nanosecond
		data[i] = max(data[i].Round(time.Microsecond), time.Microsecond)
		h.Record(data[i])
	}
	slices.Sort(data)
	for _, p := range []float64{0.1, 5, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 100} {
		exact := data[nearestRank(p, int64(len(data)))-1]
		got := h.Quantile(p)
		if got < exact || float64(got-exact) > 0.001*float64(exact) {
			t.Errorf("p%v = %v, exact %v", p, got, exact)
		}
	}
}

func TestNearestRank(t *testing.T) {
	tests := []struct {
		p    float64
		n    int64
		want int64
	}{
		{95, 100, 95}, {95, 20, 19}, {95, 21, 20}, {50, 1, 1}, {50, 2, 1}, {50, 3, 2},
		{0, 10, 1}, {100, 10, 10}, {99.9, 1000, 999}, {99.9, 1001, 1000}, {-5, 10, 1}, {250, 10, 10},
	}
	for _, tt := range tests {
		if got := nearestRank(tt.p, tt.n); got != tt.want {
			t.Errorf("nearestRank(%v, %d) = %d, want %d", tt.p, tt.n, got, tt.want)
		}
	}
}

func TestHistogramEmpty(t *testing.T) {
	h := NewHistogram()
	if h.Count() != 0 || h.Quantile(50) != 0 || h.Mean() != 0 || h.Max() != 0 || h.CountAbove(0) != 0 {
		t.Fatal("empty histogram reports observations")
	}
	if s := h.Summary(); s != (Summary{}) {
		t.Fatalf("empty Summary = %+v", s)
	}
	if _, _, ok := h.QuantileCI(50); ok {
		t.Fatal("empty histogram has a confidence interval")
	}
}

func TestHistogramClamps(t *testing.T) {
	h := NewHistogram()
	h.Record(0)
	h.Record(-time.Second)
	h.Record(500 * time.Nanosecond)
	h.Record(time.Microsecond)
	h.Record(time.Hour)
	h.Record(2 * time.Hour)
	if got := h.Clamped(); got != 4 {
		t.Errorf("Clamped = %d, want 4 (three below 1µs, one above 1h)", got)
	}
	if got := h.Quantile(0); got != time.Microsecond {
		t.Errorf("minimum = %v, want 1µs", got)
	}
	if got := h.Max(); got != time.Hour {
		t.Errorf("Max = %v, want 1h", got)
	}
	if got := h.Quantile(100); got != time.Hour {
		t.Errorf("p100 = %v, want 1h", got)
	}
	if got := h.Count(); got != 6 {
		t.Errorf("Count = %d, want 6", got)
	}
}

func TestHistogramCountAbove(t *testing.T) {
	// Below 2ms the resolution is 1µs, so counts are exact.
	h := NewHistogram()
	for i := 1; i <= 100; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	tests := []struct {
		d    time.Duration
		want int64
	}{
		{0, 100}, {-time.Second, 100}, {time.Microsecond, 99}, {50 * time.Microsecond, 50},
		{50*time.Microsecond + 400*time.Nanosecond, 50}, {100 * time.Microsecond, 0}, {time.Hour, 0}, {2 * time.Hour, 0},
	}
	for _, tt := range tests {
		if got := h.CountAbove(tt.d); got != tt.want {
			t.Errorf("CountAbove(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
	// At 9s the resolution is 8.192ms: values within it count as equal.
	u := uniformMillis(10_000)
	if got := u.CountAbove(9 * time.Second); got > 1000 || got < 1000-9 {
		t.Errorf("CountAbove(9s) over 1..10000ms = %d, want 1000 less at most the 9 values sharing its bucket", got)
	}
}

func TestHistogramMerge(t *testing.T) {
	whole, a, b := NewHistogram(), NewHistogram(), NewHistogram()
	rng := rand.New(rand.NewPCG(8, 9))
	for i := range 5000 {
		d := time.Duration(rng.ExpFloat64() * float64(40*time.Millisecond))
		if i == 17 {
			d = 3 * time.Hour
		}
		whole.Record(d)
		if i%3 == 0 {
			a.Record(d)
		} else {
			b.Record(d)
		}
	}
	a.Merge(b)
	a.Merge(nil)
	a.Merge(NewHistogram())
	if a.Count() != whole.Count() || a.Max() != whole.Max() || a.Clamped() != whole.Clamped() || a.Summary() != whole.Summary() {
		t.Fatalf("merged %+v (clamped %d), whole %+v (clamped %d)", a.Summary(), a.Clamped(), whole.Summary(), whole.Clamped())
	}
	if b.Count() == 0 || b.Count() == a.Count() {
		t.Fatal("Merge changed its argument")
	}
	// Mean may differ in the last nanosecond from summation order.
	if diff := a.Mean() - whole.Mean(); diff < -1 || diff > 1 {
		t.Fatalf("merged mean %v, whole %v", a.Mean(), whole.Mean())
	}
}

func TestSummaryJSON(t *testing.T) {
	h := NewHistogram()
	h.Record(2 * time.Millisecond)
	h.Record(4 * time.Millisecond)
	b, err := json.Marshal(h.Summary())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"count":2,"mean":3,"p50":2,"p90":4,"p95":4,"p99":4,"p999":4,"max":4}`
	if string(b) != want {
		t.Fatalf("Summary JSON = %s, want %s", b, want)
	}
}

func BenchmarkHistogramRecord(b *testing.B) {
	h := NewHistogram()
	d := 37 * time.Millisecond
	for b.Loop() {
		h.Record(d)
		d += 13 * time.Microsecond
		if d > time.Second {
			d = time.Millisecond
		}
	}
}

func BenchmarkHistogramSummary(b *testing.B) {
	h := uniformMillis(10_000)
	for b.Loop() {
		h.Summary()
	}
}

func TestHistogramJSONRoundTrip(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 5000; i++ {
		h.Record(time.Duration(i*i) * time.Microsecond)
	}
	h.Record(2 * time.Hour) // clamped
	b, err := json.Marshal(h)
	require.NoError(t, err)
	assert.Less(t, len(b), 20_000, "compressed")
	var back Histogram
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, h.Count(), back.Count())
	assert.Equal(t, h.Mean(), back.Mean())
	assert.Equal(t, h.Max(), back.Max())
	assert.Equal(t, h.Clamped(), back.Clamped())
	for _, p := range []float64{1, 50, 95, 99, 99.9} {
		assert.Equal(t, h.Quantile(p), back.Quantile(p), "p%g", p)
	}
	lo, hi, _ := h.QuantileCI(95)
	blo, bhi, _ := back.QuantileCI(95)
	assert.Equal(t, [2]time.Duration{lo, hi}, [2]time.Duration{blo, bhi})
	assert.Error(t, json.Unmarshal([]byte(`{"hdr":"not base64"}`), &back))
}

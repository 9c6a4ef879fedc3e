package stats

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestQuantileCIRanksTable(t *testing.T) {
	// Expected ranks computed independently with exact rational arithmetic
	// (binomial pmf as fractions, no floating point).
	tests := []struct {
		n      int64
		p      float64
		lo, hi int64
	}{
		{100, 50, 40, 61},
		{1000, 99, 983, 997},
		{1000, 95, 936, 964},
		{368, 99, 360, 368},
		{72, 95, 64, 72},
		{6, 50, 1, 6},
		{200, 90, 171, 189},
	}
	for _, tt := range tests {
		lo, hi, ok := QuantileCIRanks(tt.n, tt.p, 0.95)
		if !ok || lo != tt.lo || hi != tt.hi {
			t.Errorf("QuantileCIRanks(%d, %v, 0.95) = %d, %d, %v; want %d, %d, true", tt.n, tt.p, lo, hi, ok, tt.lo, tt.hi)
		}
	}
}

// binomialTails computes P(B ≤ k) and P(B ≥ k) for every k by the pmf
// ratio recurrence, started at the mode and normalised at the end: an
// independent route from the log-gamma one under test.
func binomialTails(n int64, q float64) (cdf, sf []float64) {
	pmf := make([]float64, n+1)
	mode := int64(math.Floor(float64(n+1) * q))
	mode = min(mode, n)
	pmf[mode] = 1
	for k := mode + 1; k <= n; k++ {
		pmf[k] = pmf[k-1] * float64(n-k+1) / float64(k) * q / (1 - q)
	}
	for k := mode - 1; k >= 0; k-- {
		pmf[k] = pmf[k+1] * float64(k+1) / float64(n-k) * (1 - q) / q
	}
	var total float64
	for _, v := range pmf {
		total += v
	}
	for k := range pmf {
		pmf[k] /= total
	}
	cdf = make([]float64, n+1)
	sf = make([]float64, n+2)
	var c float64
	for k := range pmf {
		c += pmf[k]
		cdf[k] = c
	}
	for k := n; k >= 0; k-- {
		sf[k] = sf[k+1] + pmf[k]
	}
	return cdf, sf
}

func TestQuantileCIRanksAreTheTightestValidRanks(t *testing.T) {
	for _, n := range []int64{20, 59, 100, 250, 500} {
		for _, p := range []float64{10, 50, 90, 95} {
			lo, hi, ok := QuantileCIRanks(n, p, 0.95)
			if !ok {
				continue
			}
			cdf, sf := binomialTails(n, p/100)
			const tail, eps = 0.025, 1e-12
			// Valid: each tail at most 2.5%. Tightest: one rank further
			// in would break it.
			if cdfBelow(cdf, lo) > tail+eps || cdfBelow(cdf, lo+1) <= tail-eps {
				t.Errorf("n=%d p=%v: lo=%d, P(B<lo)=%.5f P(B<lo+1)=%.5f", n, p, lo, cdfBelow(cdf, lo), cdfBelow(cdf, lo+1))
			}
			if sf[hi] > tail+eps || sf[hi-1] <= tail-eps {
				t.Errorf("n=%d p=%v: hi=%d, P(B≥hi)=%.5f P(B≥hi−1)=%.5f", n, p, hi, sf[hi], sf[hi-1])
			}
			if coverage := 1 - sf[hi] - cdfBelow(cdf, lo); coverage < 0.95-eps {
				t.Errorf("n=%d p=%v: coverage %.5f below 0.95", n, p, coverage)
			}
		}
	}
}

// cdfBelow is P(B < r) = P(B ≤ r−1).
func cdfBelow(cdf []float64, r int64) float64 {
	if r < 1 {
		return 0
	}
	return cdf[r-1]
}

func TestQuantileCIRanksTooFewSamples(t *testing.T) {
	tests := []struct {
		n  int64
		p  float64
		ok bool
	}{
		{5, 50, false}, {6, 50, true},
		{71, 95, false}, {72, 95, true},
		{367, 99, false}, {368, 99, true},
		{367, 1, false}, {368, 1, true},
		{0, 50, false}, {-1, 50, false},
		{1000, 0, false}, {1000, 100, false}, {1000, math.NaN(), false},
	}
	for _, tt := range tests {
		if _, _, ok := QuantileCIRanks(tt.n, tt.p, 0.95); ok != tt.ok {
			t.Errorf("QuantileCIRanks(%d, %v) ok = %v, want %v", tt.n, tt.p, ok, tt.ok)
		}
	}
	if _, _, ok := QuantileCIRanks(1000, 50, 1); ok {
		t.Error("confidence 1 gave an interval")
	}
}

func TestMinSamplesForCI(t *testing.T) {
	tests := []struct {
		p, conf float64
		want    int64
	}{
		{50, 0.95, 6},
		{95, 0.95, 72},
		{99, 0.95, 368},
		{99.9, 0.95, 3688},
		{1, 0.95, 368},
		{99, 0.99, 528},
		{0, 0.95, 0},
		{99, 1.5, 0},
	}
	for _, tt := range tests {
		if got := MinSamplesForCI(tt.p, tt.conf); got != tt.want {
			t.Errorf("MinSamplesForCI(%v, %v) = %d, want %d", tt.p, tt.conf, got, tt.want)
		}
	}
}

func TestNormalApproximationMatchesExactAboveTheSwitch(t *testing.T) {
	for _, n := range []int64{exactBinomialMaxN + 1, 250_000} {
		for _, p := range []float64{50, 95, 99, 99.9} {
			q := p / 100
			elo, ehi := exactCIRanks(n, q, 0.025)
			nlo, nhi := normalCIRanks(n, q, 0.95)
			if abs64(elo-nlo) > 1 || abs64(ehi-nhi) > 1 {
				t.Errorf("n=%d p=%v: normal (%d, %d), exact (%d, %d)", n, p, nlo, nhi, elo, ehi)
			}
		}
	}
	// Across the switch the interval moves smoothly.
	lo1, hi1, _ := QuantileCIRanks(exactBinomialMaxN, 99, 0.95)
	lo2, hi2, _ := QuantileCIRanks(exactBinomialMaxN+1, 99, 0.95)
	if abs64(lo2-lo1) > 1 || abs64(hi2-hi1) > 2 {
		t.Errorf("ranks jump across the switch: (%d, %d) then (%d, %d)", lo1, hi1, lo2, hi2)
	}
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestQuantileCICoverage(t *testing.T) {
	// 200 runs of 1000 exponential latencies with mean 100ms. The true p95
	// is 100ms·ln 20. A 95% interval must cover it in about 95% of runs;
	// below 90% is more than 3 standard errors off.
	truth := time.Duration(100 * float64(time.Millisecond) * math.Log(20))
	rng := rand.New(rand.NewPCG(2026, 95))
	const repeats = 200
	covered := 0
	for range repeats {
		h := NewHistogram()
		for range 1000 {
			h.Record(time.Duration(rng.ExpFloat64() * 100 * float64(time.Millisecond)))
		}
		lo, hi, ok := h.QuantileCI(95)
		if !ok {
			t.Fatal("no interval for p95 of 1000 observations")
		}
		if lo <= truth && truth <= hi {
			covered++
		}
	}
	if rate := float64(covered) / repeats; rate < 0.90 {
		t.Fatalf("95%% CI covered the true p95 in %.1f%% of runs, want at least 90%%", rate*100)
	}
	t.Logf("95%% CI covered the true p95 in %d of %d runs", covered, repeats)
}

func TestQuantileCIOnHistogramUsesTheOrderStatistics(t *testing.T) {
	h := NewHistogram()
	perm := rand.New(rand.NewPCG(1, 1)).Perm(100)
	for _, v := range perm {
		h.Record(time.Duration(v+1) * time.Millisecond) // 1..100 ms, shuffled
	}
	lo, hi, ok := h.QuantileCI(50)
	if !ok {
		t.Fatal("no interval for the median of 100")
	}
	// Ranks 40 and 61 of 1..100 ms, at HDR resolution (within 0.1%, never below).
	for _, c := range []struct{ got, want time.Duration }{{lo, 40 * time.Millisecond}, {hi, 61 * time.Millisecond}} {
		if c.got < c.want || float64(c.got-c.want) > 0.001*float64(c.want) {
			t.Errorf("bound %v, want %v within 0.1%%", c.got, c.want)
		}
	}
	small := NewHistogram()
	for i := range 50 {
		small.Record(time.Duration(i+1) * time.Millisecond)
	}
	if _, _, ok := small.QuantileCI(99); ok {
		t.Error("p99 interval from 50 observations")
	}
}

func BenchmarkQuantileCIRanksExact100k(b *testing.B) {
	for b.Loop() {
		QuantileCIRanks(100_000, 99, 0.95)
	}
}

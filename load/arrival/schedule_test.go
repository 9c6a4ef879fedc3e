package arrival

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

const schedMs = time.Millisecond

func TestConstantSchedule(t *testing.T) {
	tests := []struct {
		name string
		rate float64
		d    time.Duration
		want []time.Duration
	}{
		{"4 per second for 1s", 4, time.Second, []time.Duration{0, 250 * schedMs, 500 * schedMs, 750 * schedMs}},
		{"3 per second, thirds round to the ns", 3, time.Second, []time.Duration{0, 333333333, 666666667}},
		{"slot on d belongs to the next step", 2, 1500 * schedMs, []time.Duration{0, 500 * schedMs, 1000 * schedMs}},
		{"0.3 per second for 10s is exactly 3", 0.3, 10 * time.Second, []time.Duration{0, 3333333333, 6666666667}},
		{"rate below 1/d still sends at 0", 0.5, time.Second, []time.Duration{0}},
		{"zero rate", 0, time.Second, nil},
		{"negative duration", 1, -time.Second, nil},
		{"infinite rate", math.Inf(1), time.Second, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ConstantSchedule(tt.rate, tt.d)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("ConstantSchedule(%v, %v) = %v, want %v", tt.rate, tt.d, got, tt.want)
			}
		})
	}
}

func TestConstantScheduleCountIsCeilRateTimesDuration(t *testing.T) {
	for _, rate := range []float64{0.7, 1, 2.5, 7, 33.3, 100, 1000} {
		for _, d := range []time.Duration{time.Second, 7 * time.Second, 60 * time.Second} {
			got := len(ConstantSchedule(rate, d))
			want := int(math.Ceil(math.Round(rate*d.Seconds()*1e6) / 1e6))
			if got != want {
				t.Errorf("rate %v for %v: %d slots, want ceil(rate·d) = %d", rate, d, got, want)
			}
		}
	}
}

func TestRampSchedule(t *testing.T) {
	// From 0 to 4 req/s over 2s: Λ(t) = t², so arrival k is at √k seconds.
	got := RampSchedule(0, 4, 2*time.Second)
	want := []time.Duration{0, time.Second, 1414213562, 1732050808}
	if !slices.Equal(got, want) {
		t.Fatalf("RampSchedule(0, 4, 2s) = %v, want %v", got, want)
	}
	// From 2 to 6 over 1s: Λ(t) = 2t + 2t², k=1 at (−2+√12)/4, k=2 at (−2+√20)/4, k=3 at (−2+√28)/4.
	got = RampSchedule(2, 6, time.Second)
	want = []time.Duration{0, secondsToDuration((-2 + math.Sqrt(12)) / 4), secondsToDuration((-2 + math.Sqrt(20)) / 4), secondsToDuration((-2 + math.Sqrt(28)) / 4)}
	if !slices.Equal(got, want) {
		t.Fatalf("RampSchedule(2, 6, 1s) = %v, want %v", got, want)
	}
	// A flat ramp is the constant schedule.
	if got, want := RampSchedule(5, 5, 3*time.Second), ConstantSchedule(5, 3*time.Second); !slices.Equal(got, want) {
		t.Fatalf("flat ramp = %v, want constant %v", got, want)
	}
	// A falling ramp: from 6 to 2 over 1s, Λ(1s) = 4, so arrivals 0..3.
	if got := RampSchedule(6, 2, time.Second); len(got) != 4 || !slices.IsSorted(got) {
		t.Fatalf("falling ramp = %v, want 4 ascending offsets", got)
	}
	if got := RampSchedule(0, 0, time.Second); got != nil {
		t.Fatalf("ramp with no rate = %v, want nil", got)
	}
}

func TestTraceSchedule(t *testing.T) {
	trace := []time.Duration{10 * time.Second, 10*time.Second + 100*schedMs, 10*time.Second + 400*schedMs, 12 * time.Second}
	tests := []struct {
		name  string
		speed float64
		d     time.Duration
		want  []time.Duration
	}{
		{"own pace", 1, time.Minute, []time.Duration{0, 100 * schedMs, 400 * schedMs, 2 * time.Second}},
		{"twice as fast", 2, time.Minute, []time.Duration{0, 50 * schedMs, 200 * schedMs, time.Second}},
		{"half speed cut at d", 0.5, time.Second, []time.Duration{0, 200 * schedMs, 800 * schedMs}},
		{"cut excludes d itself", 1, 2 * time.Second, []time.Duration{0, 100 * schedMs, 400 * schedMs}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TraceSchedule(trace, tt.speed, tt.d); !slices.Equal(got, tt.want) {
				t.Fatalf("TraceSchedule(speed %v, %v) = %v, want %v", tt.speed, tt.d, got, tt.want)
			}
		})
	}
	shuffled := []time.Duration{trace[3], trace[0], trace[2], trace[1]}
	if got := TraceSchedule(shuffled, 1, time.Minute); !slices.Equal(got, []time.Duration{0, 100 * schedMs, 400 * schedMs, 2 * time.Second}) {
		t.Fatalf("unsorted trace = %v, want it sorted", got)
	}
	if shuffled[0] != trace[3] {
		t.Fatal("TraceSchedule modified its input")
	}
}

func TestTraceAtRate(t *testing.T) {
	// 4 arrivals spanning 3 s (gaps 0.5, 1.5, 1; mean gap 1 s, period 4 s).
	trace := []time.Duration{0, 500 * schedMs, 2 * time.Second, 3 * time.Second}

	// 2 req/s for 2 s: 4 arrivals, the 5th (one period on, at 4 s) lands
	// at 2 s, so every gap halves.
	got := TraceAtRate(trace, 2, 2*time.Second)
	want := []time.Duration{0, 250 * schedMs, time.Second, 1500 * schedMs}
	if !slices.Equal(got, want) {
		t.Fatalf("TraceAtRate(2/s, 2s) = %v, want %v", got, want)
	}
	// 3 req/s for 2 s: 6 arrivals, repeating the trace; the 7th (at 6 s
	// of trace time) lands at 2 s.
	got = TraceAtRate(trace, 3, 2*time.Second)
	f := 2.0 / 6
	want = nil
	for _, s := range []float64{0, 0.5, 2, 3, 4, 4.5} {
		want = append(want, secondsToDuration(s*f))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("TraceAtRate(3/s, 2s) = %v, want %v", got, want)
	}
	// The step's own count is the asked rate, whatever the trace's pace.
	for _, rate := range []float64{0.5, 7, 100} {
		if got := TraceAtRate(trace, rate, 10*time.Second); len(got) != int(rate*10) {
			t.Fatalf("%g req/s for 10 s: %d arrivals", rate, len(got))
		}
	}
	// One arrival, or all at one instant: a constant schedule.
	if got, want := TraceAtRate([]time.Duration{time.Hour}, 4, time.Second), ConstantSchedule(4, time.Second); !slices.Equal(got, want) {
		t.Fatalf("one-arrival trace = %v, want %v", got, want)
	}
	if got, want := TraceAtRate([]time.Duration{5, 5}, 2, 2*time.Second), ConstantSchedule(2, 2*time.Second); !slices.Equal(got, want) {
		t.Fatalf("simultaneous trace = %v, want %v", got, want)
	}
}

func TestRandomSchedulesAreSeeded(t *testing.T) {
	kinds := []Spec{{Kind: Poisson}, {Kind: Gamma, Burstiness: 0.5}, {Kind: Gamma, Burstiness: 3}}
	for _, a := range kinds {
		t.Run(a.String(), func(t *testing.T) {
			one, err := a.Schedule(50, 10*time.Second, 42, nil)
			if err != nil {
				t.Fatal(err)
			}
			same, _ := a.Schedule(50, 10*time.Second, 42, nil)
			other, _ := a.Schedule(50, 10*time.Second, 43, nil)
			if !slices.Equal(one, same) {
				t.Fatal("same seed gave different schedules")
			}
			if slices.Equal(one, other) {
				t.Fatal("different seeds gave the same schedule")
			}
			assertScheduleOffsets(t, one, 10*time.Second)
		})
	}
}

// assertScheduleOffsets asserts the Schedule contract: ascending, in [0, d).
func assertScheduleOffsets(t *testing.T, offs []time.Duration, d time.Duration) {
	t.Helper()
	if !slices.IsSorted(offs) {
		t.Fatal("offsets not ascending")
	}
	if len(offs) > 0 && (offs[0] < 0 || offs[len(offs)-1] >= d) {
		t.Fatalf("offsets span [%v, %v], want within [0, %v)", offs[0], offs[len(offs)-1], d)
	}
}

// scheduleGapStats returns the observed rate (arrivals over the time of the last
// one) and the squared coefficient of variation of the gaps.
func scheduleGapStats(offs []time.Duration) (rate, cv2 float64) {
	var sum, sumSq float64
	prev := time.Duration(0)
	for _, o := range offs {
		g := (o - prev).Seconds()
		sum += g
		sumSq += g * g
		prev = o
	}
	n := float64(len(offs))
	mean := sum / n
	variance := sumSq/n - mean*mean
	return n / offs[len(offs)-1].Seconds(), variance / (mean * mean)
}

func TestPoissonScheduleStatistics(t *testing.T) {
	// 100,000 arrivals at 100/s. The rate estimate's relative standard
	// error is 1/√N = 0.3%, so 1% is over 3 sigma; the CV's is about 0.5%.
	const rate = 100.0
	offs := PoissonSchedule(rate, 1000*time.Second, rand.New(rand.NewPCG(7, 7)))
	if n := len(offs); n < 99_000 || n > 101_000 {
		t.Fatalf("%d arrivals, want about 100,000", n)
	}
	observed, cv2 := scheduleGapStats(offs)
	if rel := math.Abs(observed-rate) / rate; rel >= 0.01 {
		t.Errorf("observed rate %.3f, want %v within 1%%", observed, rate)
	}
	if cv := math.Sqrt(cv2); math.Abs(cv-1) >= 0.02 {
		t.Errorf("CV of gaps %.4f, want 1 within 2%%", cv)
	}
	t.Logf("poisson: %d arrivals, rate %.3f/s, CV %.4f", len(offs), observed, math.Sqrt(cv2))
}

func TestGammaScheduleStatistics(t *testing.T) {
	tests := []struct {
		burstiness float64
		tol        float64 // relative tolerance on CV² = 1/burstiness
	}{
		{0.25, 0.05}, // CV² = 4; its standard error at N=1e5 is about 1.6%
		{1, 0.03},
		{4, 0.03},
	}
	for _, tt := range tests {
		const rate = 100.0
		offs := GammaSchedule(rate, tt.burstiness, 1000*time.Second, rand.New(rand.NewPCG(11, 3)))
		observed, cv2 := scheduleGapStats(offs)
		if rel := math.Abs(observed-rate) / rate; rel >= 0.01 {
			t.Errorf("burstiness %v: observed rate %.3f, want %v within 1%%", tt.burstiness, observed, rate)
		}
		want := 1 / tt.burstiness
		if rel := math.Abs(cv2-want) / want; rel >= tt.tol {
			t.Errorf("burstiness %v: CV² of gaps %.4f, want %v within %.0f%%", tt.burstiness, cv2, want, tt.tol*100)
		}
		t.Logf("gamma:%v: %d arrivals, rate %.3f/s, CV² %.4f (want %v)", tt.burstiness, len(offs), observed, cv2, want)
	}
}

func TestGammaSampleMoments(t *testing.T) {
	// Gamma(k, 1) has mean k and variance k; check the sampler directly,
	// both sides of the shape-1 boost.
	rng := rand.New(rand.NewPCG(1, 2))
	for _, shape := range []float64{0.1, 0.5, 1, 2.5, 10} {
		const n = 200_000
		var sum, sumSq float64
		for range n {
			x := gammaSample(rng, shape)
			if !(x >= 0) || math.IsInf(x, 0) {
				t.Fatalf("shape %v: sample %v", shape, x)
			}
			sum += x
			sumSq += x * x
		}
		mean := sum / n
		variance := sumSq/n - mean*mean
		// Standard error of the mean is √(k/n); of the variance about
		// k·√((2+6/k)/n). Allow 5 standard errors.
		if math.Abs(mean-shape) > 5*math.Sqrt(shape/n) {
			t.Errorf("shape %v: mean %.4f", shape, mean)
		}
		if math.Abs(variance-shape) > 5*shape*math.Sqrt((2+6/shape)/n) {
			t.Errorf("shape %v: variance %.4f", shape, variance)
		}
	}
}

func BenchmarkPoissonSchedule(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for b.Loop() {
		PoissonSchedule(100, 100*time.Second, rng) // 10,000 arrivals
	}
}

func BenchmarkGammaSchedule(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for b.Loop() {
		GammaSchedule(100, 0.25, 100*time.Second, rng) // 10,000 arrivals
	}
}

package arrival

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRandomSchedulesHoldExactlyTheirCount(t *testing.T) {
	for _, a := range []Spec{{Kind: Poisson}, {Kind: Gamma, Burstiness: 0.25}, {Kind: Gamma, Burstiness: 4}} {
		for _, c := range []struct {
			rate float64
			d    time.Duration
		}{{6, 60 * time.Second}, {4, 60 * time.Second}, {8, 30 * time.Second}, {0.5, 3 * time.Second}, {1000, 2 * time.Second}} {
			want := int(math.Round(c.rate * c.d.Seconds()))
			for seed := range int64(200) {
				s, err := a.Schedule(c.rate, c.d, seed, nil)
				require.NoError(t, err)
				// Plain checks in the loop: nearly two million testify
				// calls took the race pass 15 s.
				if len(s) != want {
					t.Fatalf("%s at %g req/s for %v, seed %d: %d sends, want %d", a, c.rate, c.d, seed, len(s), want)
				}
				if s[0] < 0 || s[len(s)-1] >= c.d {
					t.Fatalf("%s at %g req/s, seed %d: sends from %v to %v, outside the %v step", a, c.rate, seed, s[0], s[len(s)-1], c.d)
				}
				for i := 1; i < len(s); i++ {
					if s[i-1] > s[i] {
						t.Fatalf("%s at %g req/s, seed %d: send %d at %v after send %d at %v", a, c.rate, seed, i-1, s[i-1], i, s[i])
					}
				}
			}
		}
	}
}

func TestStepScheduleMeasuredWindowIsExact(t *testing.T) {
	a := Spec{Kind: Poisson}
	for seed := range int64(100) {
		s, err := a.StepSchedule(6, 10*time.Second, 60*time.Second, seed, nil)
		require.NoError(t, err)
		measured := 0
		for _, o := range s {
			if o >= 10*time.Second {
				measured++
			}
		}
		require.Equal(t, 360, measured, "seed %d", seed)
		require.Len(t, s, 420, "and the warm-up holds its own 60")
	}
}

// The conditioning fixes the count and keeps the process: gaps stay
// exponential (mean 1/rate, coefficient of variation 1) for Poisson and
// keep the gamma's squared CV of 1/burstiness.
func TestExactSchedulesKeepTheirGapDistribution(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cv2 := func(s []time.Duration) (mean, cv2 float64) {
		var sum, sq float64
		for i := 1; i < len(s); i++ {
			g := (s[i] - s[i-1]).Seconds()
			sum += g
			sq += g * g
		}
		n := float64(len(s) - 1)
		mean = sum / n
		return mean, (sq/n - mean*mean) / (mean * mean)
	}
	m, c := cv2(PoissonSchedule(100, 1000*time.Second, rng))
	assert.InDelta(t, 0.01, m, 0.0002)
	assert.InDelta(t, 1, c, 0.03)
	m, c = cv2(GammaSchedule(100, 0.25, 1000*time.Second, rng))
	assert.InDelta(t, 0.01, m, 0.0004)
	assert.InDelta(t, 4, c, 0.3)
}

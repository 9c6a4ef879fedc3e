package stats

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Independent observations spread over 40 seconds: no design effect.
func TestDesignEffectOfIndependentObservations(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c, h := NewClusters(), NewHistogram()
	for sec := range 40 {
		for range 1000 {
			d := time.Duration(rng.ExpFloat64() * float64(10*time.Millisecond))
			c.Record(sec, d)
			h.Record(d)
		}
	}
	for _, p := range []float64{50, 95, 99} {
		deff := c.DesignEffect(h.Quantile(p))
		// Taking the largest of four widths' estimates from 5 to 40
		// clusters leans high; a real correlation is far larger.
		assert.Less(t, deff, 2.0, "p%g", p)
		assert.GreaterOrEqual(t, deff, 1.0)
	}
}

// Observations that come in bursts: in each second either every
// observation is slow (a stalled step hit them all) or none is. The
// fraction above the p90 then varies between clusters as much as the
// clusters' own size allows: the design effect approaches the cluster size.
func TestDesignEffectOfClusteredObservations(t *testing.T) {
	const perSec = 200
	c, h := NewClusters(), NewHistogram()
	for sec := range 40 {
		d := 5 * time.Millisecond
		if sec%10 == 3 || sec%10 == 7 { // 8 of 40 seconds slow: 20%
			d = 50 * time.Millisecond
		}
		for range perSec {
			c.Record(sec, d)
			h.Record(d)
		}
	}
	// Above the p50 (5 ms) is exactly the slow seconds. With clusters of
	// one second the estimate is C/(C−1)·Σ(k−p·n)²/(N·p·(1−p)) with k = n or
	// 0: (40/39)·n²·(8·0.64 + 32·0.04)/(8000·0.16) = (40/39)·200 = 205.1.
	// Wider clusters mix slow and quick seconds and show less.
	deff := c.DesignEffect(h.Quantile(50))
	assert.InDelta(t, 40.0/39*perSec, deff, 0.5)
}

// Correlation longer than a second shows at the wider cluster widths.
func TestDesignEffectSeesLongerBursts(t *testing.T) {
	c, h := NewClusters(), NewHistogram()
	rng := rand.New(rand.NewPCG(3, 4))
	for sec := range 64 {
		slow := (sec/4)%4 == 0 // 4-second bursts, one in four
		for range 50 {
			d := time.Duration((1 + rng.Float64()) * float64(time.Millisecond))
			if slow {
				d *= 10
			}
			c.Record(sec, d)
			h.Record(d)
		}
	}
	assert.Greater(t, c.DesignEffect(h.Quantile(80)), 100.0, "4-s bursts of 50 a second: clusters of 200")
}

func TestDesignEffectEdges(t *testing.T) {
	var nilC *Clusters
	assert.Equal(t, 1.0, nilC.DesignEffect(time.Second))
	c := NewClusters()
	assert.Equal(t, 1.0, c.DesignEffect(time.Second), "empty")
	for sec := range 3 {
		c.Record(sec, time.Millisecond)
		c.Record(sec, time.Second)
	}
	assert.Equal(t, 1.0, c.DesignEffect(time.Hour), "none above")
	assert.Equal(t, 1.0, c.DesignEffect(0), "all above")
	assert.Equal(t, 1.0, c.DesignEffect(2*time.Millisecond), "three clusters are too few to tell")
}

// A design effect of 4 makes the interval of n observations that of n/4:
// about twice as wide, around the same percentile.
func TestQuantileCIClustered(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 10000; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	lo1, hi1, ok := h.QuantileCIClustered(99, 0.95, 1)
	require.True(t, ok)
	lo0, hi0, _ := h.QuantileCIAt(99, 0.95)
	assert.Equal(t, [2]time.Duration{lo0, hi0}, [2]time.Duration{lo1, hi1}, "deff 1 is the plain interval")
	lo4, hi4, ok := h.QuantileCIClustered(99, 0.95, 4)
	require.True(t, ok)
	w1, w4 := float64(hi1-lo1), float64(hi4-lo4)
	assert.InDelta(t, 2.0, w4/w1, 0.15, "√4 times as wide: %v–%v against %v–%v", lo4, hi4, lo1, hi1)
	assert.Less(t, lo4, lo1)
	assert.Greater(t, hi4, hi1)
	_, _, ok = h.QuantileCIClustered(99, 0.95, 10000.0/300)
	assert.False(t, ok, "300 effective observations are too few for a p99 interval (368)")
}

func TestClustersMergeAndJSON(t *testing.T) {
	a, b, whole := NewClusters(), NewClusters(), NewClusters()
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 5000 {
		sec := rng.IntN(30)
		d := time.Duration(rng.ExpFloat64() * float64(20*time.Millisecond))
		if i%2 == 0 {
			a.Record(sec, d)
		} else {
			b.Record(sec, d)
		}
		whole.Record(sec, d)
	}
	m := NewClusters()
	m.Merge(a)
	m.Merge(b)
	assert.Equal(t, whole.Count(), m.Count())
	for _, q := range []time.Duration{time.Millisecond, 20 * time.Millisecond, 80 * time.Millisecond} {
		assert.Equal(t, whole.DesignEffect(q), m.DesignEffect(q))
	}
	raw, err := json.Marshal(m)
	require.NoError(t, err)
	var back Clusters
	require.NoError(t, json.Unmarshal(raw, &back))
	assert.Equal(t, m.Count(), back.Count())
	assert.Equal(t, m.DesignEffect(30*time.Millisecond), back.DesignEffect(30*time.Millisecond))
	assert.Less(t, len(raw), 8000, "5,000 observations over 30 s, deflated")
	for _, bad := range badClusters(t, raw) {
		assert.Error(t, json.Unmarshal([]byte(bad), &back), bad)
	}
}

// badClusters are encodings UnmarshalJSON must refuse: not a string, not
// base64, not deflate, a stream cut short, a bucket out of range, bytes
// after the end.
func badClusters(t testing.TB, good []byte) []string {
	var enc string
	require.NoError(t, json.Unmarshal(good, &enc))
	z, _ := base64.StdEncoding.DecodeString(enc)
	deflated := func(raw []byte) string {
		var buf bytes.Buffer
		zw, _ := flate.NewWriter(&buf, flate.BestSpeed)
		_, _ = zw.Write(raw)
		_ = zw.Close()
		q, _ := json.Marshal(base64.StdEncoding.EncodeToString(buf.Bytes()))
		return string(q)
	}
	q := func(b []byte) string { s, _ := json.Marshal(base64.StdEncoding.EncodeToString(b)); return string(s) }
	return []string{
		`[[3, 1]]`, `12`, `"not base64!"`, q([]byte("not deflate")), q(z[:len(z)/2]),
		deflated([]byte{1, 1, 0xff, 0xff, 0x03, 1}), // one second, one bucket, first bucket 65535
		deflated([]byte{1, 0, 7}),                   // a byte after the last second
		deflated([]byte{2, 0}),                      // two seconds announced, one given
	}
}

func FuzzClustersJSON(f *testing.F) {
	c := NewClusters()
	for i := range 100 {
		c.Record(i%7, time.Duration(i*i)*time.Microsecond)
	}
	good, _ := json.Marshal(c)
	f.Add(string(good))
	f.Add(`""`)
	for _, bad := range badClusters(f, good) {
		f.Add(bad)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var c Clusters
		if err := json.Unmarshal([]byte(in), &c); err != nil {
			return
		}
		// What decodes encodes back to the same clusters.
		out, err := json.Marshal(&c)
		require.NoError(t, err)
		var back Clusters
		require.NoError(t, json.Unmarshal(out, &back))
		require.Equal(t, c.Count(), back.Count())
		require.Equal(t, c.DesignEffect(time.Millisecond), back.DesignEffect(time.Millisecond))
	})
}

// The fast bucket agrees with the logarithm's, but for values within a
// hair of a bucket's edge.
func TestClusterBucketMatchesLog(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	off := 0
	for range 200000 {
		d := time.Duration(math.Exp(rng.Float64()*math.Log(float64(histMax)))) + histMin
		us := float64(min(max(d, histMin), histMax)) / float64(time.Microsecond)
		want := int(math.Log(us) / clusterLogRatio)
		got := clusterBucket(d)
		if got != want {
			x := math.Log(us) / clusterLogRatio
			assert.InDelta(t, math.Round(x), x, 1e-5, "%v is not at a bucket's edge", d)
			assert.InDelta(t, want, got, 1, "%v", d)
			off++
		}
	}
	t.Logf("%d of 200,000 at a bucket's edge fell the other side", off)
}

package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
)

// openFit opens a plan on the simulator with flags and returns its Fit.
func openFit(t *testing.T, fixture string, margin float64, flags ...string) *report.Fit {
	t.Helper()
	plan := DefaultPlan()
	plan.Target, plan.Fixture, plan.FitMargin = simArgsTarget(t, flags...), plantest.MustFixture(t, fixture), margin
	m, err := Open(context.Background(), plan)
	require.NoError(t, err)
	defer m.Close()
	f := m.Report().Fit
	require.NotNil(t, f)
	t.Log(f.Message)
	return f
}

// Fit on the simulator: a quarter of an H100 leaves room for a few
// thousand KV blocks, which hold two of these 9,000-token requests while
// max_num_seqs admits 1,024; at 0.9 of it the cache holds thousands of
// short requests. The figures are the simulator's own KV sizing.
func TestFitFindsACacheSmallerThanTheBatchCap(t *testing.T) {
	small := []string{"--gpu", "h100", "--gpu-memory-utilization", "0.25", "--max-model-len", "16384"}
	cfg, err := vllmsim.ParseServeArgs(small)
	require.NoError(t, err)
	lines, err := vllmsim.Describe(cfg)
	require.NoError(t, err)
	t.Log(lines)

	f := openFit(t, "fixed:8000:1000", 0, small...)
	require.Greater(t, f.KVCacheTokens, 0)
	assert.Equal(t, "simulator", f.KVCacheSource)
	assert.Equal(t, 9000.0, f.RequestTokensP95)
	assert.InDelta(t, float64(f.KVCacheTokens)/9000, f.RequestsAtP95, 1e-9)
	assert.Less(t, f.RequestsAtP95, float64(f.MaxNumSeqs))
	require.NotNil(t, f.Finding, f.Message)
	assert.Equal(t, verdict.FindingKVFit, f.Finding.Kind)
	assert.Equal(t, []string{"--gpu-memory-utilization", "--kv-cache-dtype fp8", "--max-model-len", "--max-num-seqs"}, f.Finding.Flags)
	assert.Contains(t, f.Message, "max_num_seqs is 1024")

	roomy := openFit(t, "fixed:100:20", 0, "--gpu", "h100", "--max-model-len", "16384")
	assert.Nil(t, roomy.Finding, roomy.Message)
	assert.Greater(t, roomy.RequestsAtP95, float64(roomy.MaxNumSeqs))

	// A margin the user sets: the same roomy cache falls short of 100 × max_num_seqs.
	strict := openFit(t, "fixed:100:20", 100, "--gpu", "h100", "--max-model-len", "16384")
	assert.NotNil(t, strict.Finding, strict.Message)
}

// Requests longer than max_model_len are clipped before the run, and Fit
// says how many.
func TestFitCountsClippedRequests(t *testing.T) {
	f := openFit(t, "fixed:3000:1000", 0, "--max-model-len", "2048")
	assert.Equal(t, f.Requests, f.Clipped)
	assert.Contains(t, f.Message, "longer than max_model_len 2048 and were clipped")
	assert.Equal(t, 2048.0, f.RequestTokensP95, "sizes as sent")
}

// A server without metrics: the capacity could not be read, and no
// finding is made up.
func TestFitWithoutMetricsSaysTheCapacityIsUnknown(t *testing.T) {
	sim := simtest.Start(t, vllmsim.Config{})
	mux := http.NewServeMux()
	mux.Handle("/v1/", sim.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	plan := DefaultPlan()
	plan.Target, plan.Fixture = URLTarget{URL: srv.URL}, plantest.MustFixture(t, "fixed:100:20")
	m, err := Open(context.Background(), plan)
	require.NoError(t, err)
	defer m.Close()
	f := m.Report().Fit
	assert.Zero(t, f.KVCacheTokens)
	assert.Nil(t, f.Finding)
	assert.Contains(t, f.Note, "could not be read")
	assert.Contains(t, f.Message, "could not be read")
}

// Against a URL, Fit reads the KV cache's capacity from the server's
// vllm:cache_config_info, as it would from vLLM's.
func TestFitReadsTheCacheConfigOfAURL(t *testing.T) {
	cfg, err := vllmsim.ParseServeArgs([]string{"--num-gpu-blocks-override", "1000", "--max-model-len", "4096"})
	require.NoError(t, err)
	sim := simtest.Start(t, cfg)
	plan := DefaultPlan()
	plan.Target, plan.Fixture = URLTarget{URL: sim.URL}, plantest.MustFixture(t, "fixed:3000:1000")
	m, err := Open(context.Background(), plan)
	require.NoError(t, err)
	defer m.Close()
	f := m.Report().Fit
	t.Log(f.Message)
	assert.Equal(t, 16000, f.KVCacheTokens)
	assert.Equal(t, "vllm:cache_config_info", f.KVCacheSource)
	assert.Zero(t, f.MaxNumSeqs, "vLLM's /metrics does not say max_num_seqs")
	assert.Nil(t, f.Finding, "no max_num_seqs to set it against")
	assert.Contains(t, f.Message, "holds 4.0 requests of the p95 size (4000 tokens")
	assert.Contains(t, f.Message, "max_num_seqs is not known")
}

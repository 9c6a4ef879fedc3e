package vllmapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// CacheConfig is what vLLM's vllm:cache_config_info says of its KV cache:
// an info gauge whose labels carry the configuration.
type CacheConfig struct {
	NumGPUBlocks int
	BlockSize    int
	// Engines counts the series read (one per data-parallel engine): the
	// capacity is the smallest engine's, since each engine holds its own
	// requests.
	Engines int
}

// Tokens is the KV cache's capacity in tokens.
func (c CacheConfig) Tokens() int { return c.NumGPUBlocks * c.BlockSize }

// ParseCacheConfig reads vllm:cache_config_info from a /metrics
// exposition. It fails when the family is absent or carries no block count.
func ParseCacheConfig(r io.Reader) (CacheConfig, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return CacheConfig{}, fmt.Errorf("parse /metrics: %w", err)
	}
	f, ok := fams["vllm:cache_config_info"]
	if !ok {
		return CacheConfig{}, fmt.Errorf("no vllm:cache_config_info in /metrics")
	}
	var c CacheConfig
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		blocks, berr := strconv.Atoi(labels["num_gpu_blocks"])
		size, serr := strconv.Atoi(labels["block_size"])
		if berr != nil || serr != nil || blocks <= 0 || size <= 0 {
			continue
		}
		if c.Engines == 0 || blocks*size < c.Tokens() {
			c.NumGPUBlocks, c.BlockSize = blocks, size
		}
		c.Engines++
	}
	if c.Engines == 0 {
		return c, fmt.Errorf("vllm:cache_config_info carries no num_gpu_blocks and block_size")
	}
	return c, nil
}

// ScrapeCacheConfig fetches baseURL/metrics and reads its cache
// configuration.
func ScrapeCacheConfig(ctx context.Context, hc *http.Client, baseURL string) (CacheConfig, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(baseURL, "/")+"/metrics", nil)
	if err != nil {
		return CacheConfig{}, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return CacheConfig{}, fmt.Errorf("scrape /metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return CacheConfig{}, fmt.Errorf("scrape /metrics: HTTP %d", resp.StatusCode)
	}
	return ParseCacheConfig(io.LimitReader(resp.Body, 64<<20))
}

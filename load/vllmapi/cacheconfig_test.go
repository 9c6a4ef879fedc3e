package vllmapi

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/vllmcaptures"
)

// vLLM's info gauge, one series per engine: the smallest engine's cache
// is what one engine's requests share.
func TestParseCacheConfigReadsTheSmallestEngine(t *testing.T) {
	text := `# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="auto",engine="0",gpu_memory_utilization="0.9",num_gpu_blocks="27000"} 1.0
vllm:cache_config_info{block_size="16",cache_dtype="auto",engine="1",gpu_memory_utilization="0.9",num_gpu_blocks="26500"} 1.0
`
	c, err := ParseCacheConfig(strings.NewReader(text))
	require.NoError(t, err)
	assert.Equal(t, 26500*16, c.Tokens())
	assert.Equal(t, 2, c.Engines)

	_, err = ParseCacheConfig(strings.NewReader("vllm:num_requests_running 0\n"))
	assert.ErrorContains(t, err, "no vllm:cache_config_info")
	_, err = ParseCacheConfig(strings.NewReader(`vllm:cache_config_info{block_size="16",num_gpu_blocks="None"} 1.0` + "\n"))
	assert.ErrorContains(t, err, "no num_gpu_blocks")
}

// A real vLLM scrape (internal/vllmcaptures): 81,767 blocks of 16 tokens.
func TestParseCacheConfigReadsARealScrape(t *testing.T) {
	c, err := ParseCacheConfig(bytes.NewReader(vllmcaptures.Read("metrics-v0.txt")))
	require.NoError(t, err)
	assert.Equal(t, 81767*16, c.Tokens())
}

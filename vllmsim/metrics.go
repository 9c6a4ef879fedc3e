package vllmsim

import "github.com/llmslo/llmslo/vllmsim/metrics"

// MetricNames lists every metric family /metrics serves (package metrics
// has them and their labels).
var MetricNames = metrics.Names

// metricsConfig is what /metrics says of the configuration c.
func metricsConfig(c Config) metrics.ServerConfig {
	dtype := c.KVCacheDType
	if dtype == "" {
		dtype = "auto"
	}
	util := c.GPUMemoryUtilization
	if util == 0 {
		util = 0.9
	}
	return metrics.ServerConfig{Model: c.servedName(), MaxModelLen: c.MaxModelLen, BlockSize: c.BlockSize,
		NumGPUBlocks: c.NumGPUBlocks, NumGPUBlocksOverride: c.NumGPUBlocks, CacheDType: dtype,
		GPUMemoryUtilization: util, PrefixCaching: !c.DisablePrefixCaching,
		RejectReasons: []string{RejectQueuedReqs, RejectQueuedTokens}}
}

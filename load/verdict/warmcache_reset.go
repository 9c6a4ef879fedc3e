package verdict

import "github.com/llmslo/llmslo/load/vllmapi"

// resetInWords says what became of the prefix-cache reset before a step,
// and the fix for a warm cache that names its real cause: the reset was
// off, not served, refused because requests still ran, or not verifiable.
func resetInWords(srv vllmapi.ServerStats) (what, fix string) {
	const keep = "; keep prompt salting on, or vary the seed"
	switch {
	case srv.PrefixCacheReset:
		return "the cache was reset before the step, so the prompts themselves repeat more than the fixture says",
			"vary the prompts: keep prompt salting on, or vary the seed"
	case srv.PrefixCacheResetStatus == vllmapi.ResetNotServed:
		return "the server does not serve /reset_prefix_cache",
			"serve vLLM with VLLM_SERVER_DEV_MODE=1 so /reset_prefix_cache works" + keep
	case srv.PrefixCacheResetStatus == vllmapi.ResetBusy:
		return "the reset was asked while the server still ran requests, which vLLM refuses though it answers 200",
			"let the server go idle before each step (a longer drain timeout, so the previous step's requests end), or allow the reset to preempt them (--reset-running-requests, WithResetRunningRequests)" + keep
	case srv.PrefixCacheResetStatus == vllmapi.ResetUnverified:
		return "the server answered the reset, but without /metrics nothing shows it was idle, so vLLM may have refused it",
			"expose the server's /metrics so the reset can wait for it to go idle" + keep
	case srv.PrefixCacheResetStatus == vllmapi.ResetFailed:
		return "the reset failed", "check that the server's /reset_prefix_cache answers" + keep
	}
	return "the cache was not reset before the step", "turn the reset before each step on (--reset-prefix-cache, WithResetPrefixCache)" + keep
}

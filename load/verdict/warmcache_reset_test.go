package verdict

import (
	"strings"
	"testing"

	"github.com/llmslo/llmslo/load/vllmapi"
)

// The warm_cache fix names the reset's real fate.
func TestWarmCacheFixNamesTheResetsFate(t *testing.T) {
	for _, c := range []struct {
		srv       vllmapi.ServerStats
		what, fix string
	}{
		{vllmapi.ServerStats{PrefixCacheReset: true, PrefixCacheResetStatus: vllmapi.ResetDone}, "was reset", "salting"},
		{vllmapi.ServerStats{PrefixCacheResetStatus: vllmapi.ResetNotServed}, "does not serve", "VLLM_SERVER_DEV_MODE=1"},
		{vllmapi.ServerStats{PrefixCacheResetStatus: vllmapi.ResetBusy}, "still ran requests", "--reset-running-requests"},
		{vllmapi.ServerStats{PrefixCacheResetStatus: vllmapi.ResetUnverified}, "without /metrics", "expose the server's /metrics"},
		{vllmapi.ServerStats{}, "not reset", "--reset-prefix-cache"},
	} {
		what, fix := resetInWords(c.srv)
		if !strings.Contains(what, c.what) || !strings.Contains(fix, c.fix) {
			t.Errorf("%q: %q / %q; want %q and %q", c.srv.PrefixCacheResetStatus, what, fix, c.what, c.fix)
		}
	}
}

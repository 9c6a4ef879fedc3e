package load

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/vllmapi"
)

// fit reads the first step of a tuning session from the server and the
// fixture as it will be sent (clipped to maxModelLen): the KV cache's
// capacity, max_model_len and max_num_seqs where the server tells them,
// and the p95 and p99 request sizes.
func fit(ctx context.Context, ep *Endpoint, hc *http.Client, fx *fixtures.Fixture, maxModelLen int, margin float64) *report.Fit {
	f := &report.Fit{MaxModelLen: maxModelLen, MaxNumSeqs: ep.MaxNumSeqs, Margin: margin, Clipped: fx.Clipped, Requests: fx.Len()}
	if f.Margin <= 0 {
		f.Margin = 1
	}
	sizes := fx.RequestSizes()
	f.RequestTokensP95, f.RequestTokensP99 = sizes.P95, sizes.P99
	f.KVCacheTokens, f.KVCacheSource = ep.KVCacheTokens, "simulator"
	if f.KVCacheTokens == 0 {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		cc, err := vllmapi.ScrapeCacheConfig(cctx, hc, ep.URL)
		cancel()
		if err != nil {
			f.KVCacheSource = ""
			f.Note = fmt.Sprintf("the KV cache's capacity could not be read (%v)", err)
		} else {
			f.KVCacheTokens, f.KVCacheSource = cc.Tokens(), "vllm:cache_config_info"
		}
	}
	verdict.JudgeFit(f)
	return f
}

// tellFit shows Fit to the plan's Progress when it watches for it.
func tellFit(p Progress, f *report.Fit) {
	if w, ok := p.(FitWatcher); ok {
		w.Fit(f)
	}
}

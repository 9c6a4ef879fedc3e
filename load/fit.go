package load

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/vllmapi"
)

// FindingKVFit is the kind of Fit's finding: the KV cache holds fewer
// requests of the fixture's p95 size than max_num_seqs admits.
const FindingKVFit = "kv_cache_fit"

// fitFlags are the vLLM flags that change how many requests the KV cache
// holds, or how many the server admits.
var fitFlags = []string{"--gpu-memory-utilization", "--kv-cache-dtype fp8", "--max-model-len", "--max-num-seqs"}

// fit reads the first step of a tuning session from the server and the
// fixture as it will be sent (clipped to maxModelLen): the KV cache's
// capacity, max_model_len and max_num_seqs where the server tells them,
// and the p95 and p99 request sizes.
func fit(ctx context.Context, ep *Endpoint, hc *http.Client, fx *fixtures.Fixture, maxModelLen int, margin float64) *report.Fit {
	f := &report.Fit{MaxModelLen: maxModelLen, MaxNumSeqs: ep.MaxNumSeqs, Margin: margin, Clipped: fx.Clipped, Requests: fx.Len()}
	if f.Margin <= 0 {
		f.Margin = 1
	}
	sizes := requestSizes(fx)
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
	judgeFit(f)
	return f
}

// tellFit shows Fit to the plan's Progress when it watches for it.
func tellFit(p Progress, f *report.Fit) {
	if w, ok := p.(FitWatcher); ok {
		w.Fit(f)
	}
}

// judgeFit writes Fit's message and, when the KV cache holds fewer
// requests of the p95 size than Margin × max_num_seqs, its finding.
func judgeFit(f *report.Fit) {
	clipped := ""
	if f.Clipped > 0 {
		clipped = fmt.Sprintf("; %d of %d requests are longer than max_model_len %d and were clipped to fit", f.Clipped, f.Requests, f.MaxModelLen)
	}
	seqs := "max_num_seqs is not known"
	if f.MaxNumSeqs > 0 {
		seqs = fmt.Sprintf("max_num_seqs is %d", f.MaxNumSeqs)
	}
	if f.KVCacheTokens == 0 || f.RequestTokensP95 <= 0 {
		f.Message = fmt.Sprintf("fit: the KV cache's capacity could not be read; requests are %.0f tokens at p95, %.0f at p99; %s%s",
			f.RequestTokensP95, f.RequestTokensP99, seqs, clipped)
		return
	}
	f.RequestsAtP95 = float64(f.KVCacheTokens) / f.RequestTokensP95
	f.RequestsAtP99 = float64(f.KVCacheTokens) / max(f.RequestTokensP99, 1)
	f.Message = fmt.Sprintf("fit: the KV cache (%d tokens) holds %s requests of the p95 size (%.0f tokens; %s of the p99 size, %.0f); %s%s",
		f.KVCacheTokens, count(f.RequestsAtP95), f.RequestTokensP95, count(f.RequestsAtP99), f.RequestTokensP99, seqs, clipped)
	if f.MaxNumSeqs > 0 && f.RequestsAtP95 < f.Margin*float64(f.MaxNumSeqs) {
		want := "max_num_seqs"
		if f.Margin != 1 {
			want = fmt.Sprintf("%g × max_num_seqs (%.0f)", f.Margin, f.Margin*float64(f.MaxNumSeqs))
		}
		f.Finding = &report.Finding{Kind: FindingKVFit, Flags: fitFlags,
			Message: fmt.Sprintf("the KV cache holds %s requests of the p95 size, fewer than %s: the cache will bind before the batch cap does; "+
				"give it more blocks (--gpu-memory-utilization, --kv-cache-dtype fp8), shorten --max-model-len, or lower --max-num-seqs to %d",
				count(f.RequestsAtP95), want, max(1, int(f.RequestsAtP95/f.Margin)))}
	}
}

// requestSizes is the distribution of a request's prompt plus output
// tokens. A fixture of marginals pairs nothing, so its sizes add the two
// percentiles: an upper bound.
func requestSizes(fx *fixtures.Fixture) fixtures.Dist {
	if !fx.Provenance.Joint || len(fx.Inputs) != len(fx.Outputs) {
		in, out := fixtures.Summarize(fx.Inputs), fixtures.Summarize(fx.Outputs)
		return fixtures.Dist{Count: fx.Len(), P95: in.P95 + out.P95, P99: in.P99 + out.P99}
	}
	sizes := make([]int, len(fx.Inputs))
	for i := range sizes {
		sizes[i] = fx.Inputs[i] + fx.Outputs[i]
	}
	return fixtures.Summarize(sizes)
}

// count writes a number of requests: a tenth where it is under ten.
func count(n float64) string {
	if n < 10 {
		return fmt.Sprintf("%.1f", n)
	}
	return fmt.Sprintf("%.0f", n)
}

package verdict

import (
	"fmt"

	"github.com/llmslo/llmslo/load/report"
)

// FindingKVFit is the kind of Fit's finding: the KV cache holds fewer
// requests of the fixture's p95 size than max_num_seqs admits.
const FindingKVFit = "kv_cache_fit"

// fitFlags are the vLLM flags that change how many requests the KV cache
// holds, or how many the server admits.
var fitFlags = []string{"--gpu-memory-utilization", "--kv-cache-dtype fp8", "--max-model-len", "--max-num-seqs"}

// JudgeFit writes Fit's message and, when the KV cache holds fewer
// requests of the p95 size than Margin × max_num_seqs, its finding.
func JudgeFit(f *report.Fit) {
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
		f.KVCacheTokens, requestCount(f.RequestsAtP95), f.RequestTokensP95, requestCount(f.RequestsAtP99), f.RequestTokensP99, seqs, clipped)
	if f.MaxNumSeqs > 0 && f.RequestsAtP95 < f.Margin*float64(f.MaxNumSeqs) {
		want := "max_num_seqs"
		if f.Margin != 1 {
			want = fmt.Sprintf("%g × max_num_seqs (%.0f)", f.Margin, f.Margin*float64(f.MaxNumSeqs))
		}
		f.Finding = &report.Finding{Kind: FindingKVFit, Flags: fitFlags,
			Message: fmt.Sprintf("the KV cache holds %s requests of the p95 size, fewer than %s: the cache will bind before the batch cap does; "+
				"give it more blocks (--gpu-memory-utilization, --kv-cache-dtype fp8), shorten --max-model-len, or lower --max-num-seqs to %d",
				requestCount(f.RequestsAtP95), want, max(1, int(f.RequestsAtP95/f.Margin)))}
	}
}

// requestCount writes a number of requests: a tenth where it is under ten.
func requestCount(n float64) string {
	if n < 10 {
		return fmt.Sprintf("%.1f", n)
	}
	return fmt.Sprintf("%.0f", n)
}

package workload

import (
	"testing"
)

func benchRequests(b *testing.B, api API) {
	fx := mustOpen(b, "azure-conv-2023")
	w, err := New(fx, Options{Seed: 1, API: api})
	if err != nil {
		b.Fatal(err)
	}
	tokens := 0
	i := 0
	for b.Loop() {
		tokens += w.Request(i).InputTokens
		i++
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds()/1e6, "Mtokens/s")
}

// BenchmarkRequestTokenIDs is the cost of one token-id prompt of the
// conversation trace's length distribution (mean 1155 tokens).
func BenchmarkRequestTokenIDs(b *testing.B) { benchRequests(b, APICompletions) }

// BenchmarkRequestText is the same for a text prompt without a tokenizer.
func BenchmarkRequestText(b *testing.B) { benchRequests(b, APIChat) }

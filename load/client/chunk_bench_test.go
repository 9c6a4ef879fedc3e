package client

import (
	"strings"
	"testing"
)

// benchChunks are vLLM events as they come in a stream: a completions token,
// a chat delta, the final usage event and a token event with long text.
var benchChunks = []struct {
	name   string
	data   string
	tokens bool
}{
	{"completion", `{"id":"cmpl-8f1c","object":"text_completion","created":1732000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"text":" token","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`, true},
	{"chat", `{"id":"chatcmpl-8f1c","object":"chat.completion.chunk","created":1732000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":512,"total_tokens":600,"completion_tokens":88}}`, true},
	{"usage", `{"id":"cmpl-8f1c","object":"text_completion","created":1732000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[],"usage":{"prompt_tokens":512,"total_tokens":768,"completion_tokens":256,"prompt_tokens_details":{"cached_tokens":256}}}`, false},
	{"long", `{"id":"cmpl-8f1c","object":"text_completion","created":1732000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"text":"` +
		strings.Repeat(`def f(x):\n    return \"caf\u00e9\" + x\t# `, 64) +
		`","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`, true},
}

// BenchmarkChunk parses each sample; one op is one event.
func BenchmarkChunk(b *testing.B) {
	for _, bc := range benchChunks {
		data := []byte(bc.data)
		b.Run(bc.name, func(b *testing.B) {
			var c chunk
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := parseChunk(data, &c); err != nil || c.tokens != bc.tokens {
					b.Fatalf("err %v, tokens %v", err, c.tokens)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
		})
	}
}

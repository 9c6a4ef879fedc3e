package client

import (
	"bytes"
	"io"
	"testing"

	"github.com/llmslo/llmslo/load/workload"
)

// benchStream is a vLLM-like completions stream of n token events.
func benchStream(n int) []byte {
	var b bytes.Buffer
	for range n {
		b.WriteString(`data: {"id":"cmpl-8f1c","object":"text_completion","created":1732000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"text":" token","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}` + "\n\n")
	}
	b.WriteString(`data: {"id":"cmpl-8f1c","object":"text_completion","created":1732000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[],"usage":{"prompt_tokens":512,"total_tokens":768,"completion_tokens":256}}` + "\n\ndata: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkSSEReader reads a 256-event stream; one op is one event.
func BenchmarkSSEReader(b *testing.B) {
	stream := benchStream(256)
	src := bytes.NewReader(stream)
	r := NewSSEReader(src)
	b.SetBytes(int64(len(stream) / 258))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; {
		src.Reset(stream)
		r.Reset(src)
		for ; i < b.N; i++ {
			if _, err := r.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
}

// BenchmarkEncodeRequest encodes a completions body with 10,000 token ids.
func BenchmarkEncodeRequest(b *testing.B) {
	enc, err := newRequestEncoder(workload.APICompletions, "meta-llama/Llama-3.1-8B-Instruct", nil)
	if err != nil {
		b.Fatal(err)
	}
	req := workload.Request{PromptIDs: tokenIDs(10000), OutputTokens: 256}
	buf := make([]byte, 0, 1<<17)
	b.ReportAllocs()
	for b.Loop() {
		buf = enc.encode(buf[:0], req)
	}
	b.SetBytes(int64(len(buf)))
}

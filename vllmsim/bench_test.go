package vllmsim

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

// BenchmarkEngineStep measures one Schedule + Complete of the clock-free
// core with 256 sequences decoding (the default max_num_seqs).
func BenchmarkEngineStep(b *testing.B) {
	e := defaultEngine(b, func(c *engine.Config) { c.NumBlocks = 1 << 20 }) // room: no preemption
	for i := range 256 {
		e.Add(engine.NewSeq(uint64(i), wordsPrompt(i, 512), 1<<30))
	}
	e.Complete(e.Schedule()) // prefill everything
	b.ReportAllocs()
	b.ResetTimer()
	tokens := 0
	for b.Loop() {
		tokens += len(e.Complete(e.Schedule()))
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkStreamTokens measures streamed tokens per second over HTTP with
// the "instant" profile (the engine costs nothing, so this is the HTTP and
// SSE path) and many concurrent streams; tokens/s/core divides by
// GOMAXPROCS. Client and server share the cores.
func BenchmarkStreamTokens(b *testing.B) {
	benchStream(b, 64, engine.StepProfile{Name: "instant"})
}

// BenchmarkStreamTokensPaced is the same with 1 ms steps and 256 streams:
// every token is its own chunk, write and flush (the model allows at most
// 256,000 tokens/s), so tokens/cpu-s is the HTTP cost of one event.
func BenchmarkStreamTokensPaced(b *testing.B) {
	benchStream(b, 256, engine.StepProfile{Name: "paced", Fixed: time.Millisecond})
}

func benchStream(b *testing.B, streams int, prof engine.StepProfile) {
	s := NewServer(Config{Profile: prof, MaxNumSeqs: streams, MaxModelLen: 1 << 22, NumGPUBlocks: 1 << 19})
	defer s.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: streams}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	perStream := min(max(b.N/streams, 1), 100_000)
	body := []byte(fmt.Sprintf(`{"prompt":"bench","max_tokens":%d,"ignore_eos":true,"stream":true}`, perStream))
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for range streams {
		wg.Go(func() {
			resp, err := client.Post(s.URL+"/v1/completions", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
			r := bufio.NewReaderSize(resp.Body, 64<<10)
			n := 0
			for {
				line, err := r.ReadSlice('\n')
				if err != nil {
					break
				}
				if bytes.HasPrefix(line, []byte(`data: {`)) {
					n++
				}
			}
			mu.Lock()
			total += n
			mu.Unlock()
		})
	}
	wg.Wait()
	el, cpu := time.Since(start), cpuTime()-cpu0
	if total != streams*perStream {
		b.Fatalf("streamed %d tokens, want %d", total, streams*perStream)
	}
	b.ReportMetric(float64(total)/el.Seconds(), "tokens/s")
	b.ReportMetric(float64(total)/el.Seconds()/float64(runtime.GOMAXPROCS(0)), "tokens/s/core")
	b.ReportMetric(float64(total)/cpu.Seconds(), "tokens/cpu-s")
}

// cpuTime is the process's user and system CPU time (client and server
// together).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

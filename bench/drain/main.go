// Command drain is the floor llmslo's client is measured against: it sends
// the same streaming request llmslo sends, open-loop at a fixed rate over
// the same keep-alive HTTP/1.1 connections (net/http), and reads every
// response to its end without parsing a byte. Run under `harness cpu`, its
// whole-process CPU is the least a Go client can spend on the same streams.
//
//	drain -url http://127.0.0.1:8100 -rate 100 -duration 5s -tokens 256
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8100", "server")
	rate := flag.Float64("rate", 100, "requests per second, evenly spaced")
	dur := flag.Duration("duration", 5*time.Second, "how long to send")
	tokens := flag.Int("tokens", 256, "max_tokens of each request")
	prompt := flag.Int("prompt", 16, "prompt length in token ids")
	buf := flag.Int("buf", 4<<10, "read buffer: llmslo's SSE reader starts at 4 KiB")
	flag.Parse()

	// The body llmslo's client writes for the same request.
	var b bytes.Buffer
	b.WriteString(`{"model":"bench","prompt":[`)
	for i := range *prompt {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(1000 + i))
	}
	fmt.Fprintf(&b, `],"max_tokens":%d,"min_tokens":%d,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":false},"temperature":0}`, *tokens, *tokens)
	body := b.Bytes()

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4096, DisableCompression: true}}
	bufs := sync.Pool{New: func() any { p := make([]byte, *buf); return &p }}
	var bytesRead, failed atomic.Int64
	one := func() {
		req, err := http.NewRequest(http.MethodPost, *url+"/v1/completions", bytes.NewReader(body))
		if err != nil {
			failed.Add(1)
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		resp, err := hc.Do(req)
		if err != nil {
			failed.Add(1)
			return
		}
		defer resp.Body.Close()
		p := bufs.Get().(*[]byte)
		defer bufs.Put(p)
		var n int64
		for {
			k, err := resp.Body.Read(*p)
			n += int64(k)
			if err != nil {
				if err != io.EOF || resp.StatusCode != http.StatusOK {
					failed.Add(1)
				}
				break
			}
		}
		bytesRead.Add(n)
	}

	total := int(*rate * dur.Seconds())
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := range total {
		time.Sleep(time.Until(t0.Add(time.Duration(float64(i) / *rate * float64(time.Second)))))
		wg.Go(one)
	}
	wg.Wait()
	fmt.Printf("requests %d failed %d bytes %d wall %.3fs\n", total, failed.Load(), bytesRead.Load(), time.Since(t0).Seconds())
	if failed.Load() > 0 {
		os.Exit(1)
	}
}

package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/workload"
)

// promptIDs is the prompt every benchmark request carries: its length does
// not matter to the streaming cost, only to the request's size.
var promptIDs = func() []int {
	ids := make([]int, 16)
	for i := range ids {
		ids[i] = 1000 + i
	}
	return ids
}()

// bareBody is the body the bare clients and vegeta send: the same fields
// llmslo's client writes for the same request.
func bareBody(tokens int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model":"bench","prompt":[`)
	for i, id := range promptIDs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(id))
	}
	fmt.Fprintf(&b, `],"max_tokens":%d,"min_tokens":%d,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":false},"temperature":0}`, tokens, tokens)
	return b.Bytes()
}

// streamCmd runs -requests streams of -tokens tokens, -streams at a time
// (closed loop: the server's pace sets the rate, the same for both sides),
// and reports CPU per token: of this process (the client), and of the
// server when -server-pid names it.
func streamCmd(args []string) error {
	fs := flag.NewFlagSet("stream", flag.ExitOnError)
	url := fs.String("url", "http://127.0.0.1:8100", "server")
	bare := fs.Bool("bare", false, "drain the bytes only, instead of llmslo's client and recorder")
	label := fs.String("label", "", "the result's label (default llmslo or bare)")
	streams := fs.Int("streams", 64, "streams at once")
	requests := fs.Int("requests", 512, "streams in all")
	tokens := fs.Int("tokens", 256, "tokens per stream")
	serverPID := fs.Int("server-pid", 0, "also report this process's CPU per token")
	out := fs.String("out", "", "append the result to this file")
	_ = fs.Parse(args)
	if *label == "" {
		*label = map[bool]string{true: "bare", false: "llmslo"}[*bare]
	}
	var one func(ctx context.Context) error
	if *bare {
		one = bareStreamer(*url, *streams, *tokens)
	} else {
		var err error
		if one, err = llmsloStreamer(*url, *streams, *tokens); err != nil {
			return err
		}
	}
	ctx := context.Background()
	// One round unmeasured: connections opened, pools and heap grown.
	if err := closedLoop(ctx, *streams, *streams, one); err != nil {
		return err
	}
	cpu0, srv0, t0 := selfCPU(), pidCPU(*serverPID), time.Now()
	if err := closedLoop(ctx, *streams, *requests, one); err != nil {
		return err
	}
	cpu, srv, wall := selfCPU()-cpu0, pidCPU(*serverPID)-srv0, time.Since(t0)
	n := float64(*requests * *tokens)
	vals := map[string]float64{
		"tokens": n, "wall_s": wall.Seconds(), "cpu_s": cpu.Seconds(),
		"cpu_ns_per_token": float64(cpu.Nanoseconds()) / n,
		"tokens_per_s":     n / wall.Seconds(),
	}
	if *serverPID > 0 {
		vals["server_cpu_s"] = srv.Seconds()
		vals["server_cpu_ns_per_token"] = float64(srv.Nanoseconds()) / n
	}
	return emit(*out, result{Kind: "stream", Label: *label, Vals: vals})
}

// closedLoop runs total calls of one, workers at a time.
func closedLoop(ctx context.Context, workers, total int, one func(context.Context) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for next.Add(1) <= int64(total) {
				if err := one(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// llmsloStreamer is one request through llmslo's client, recorded as a run
// records it (every inter-token gap into the ITL histogram).
func llmsloStreamer(url string, streams, tokens int) (func(context.Context) error, error) {
	c, err := client.New(client.Config{BaseURL: url, Model: "bench", MaxConns: streams})
	if err != nil {
		return nil, err
	}
	rec := observe.NewRecorder(time.Now(), time.Hour, observe.PerRequestLimits{}, observe.LengthCheck{Tolerance: 0.01})
	req := workload.Request{PromptIDs: promptIDs, InputTokens: len(promptIDs), OutputTokens: tokens}
	c.Prepare(&req)
	outs := sync.Pool{New: func() any { return new(client.Outcome) }}
	return func(ctx context.Context) error {
		o := outs.Get().(*client.Outcome)
		defer outs.Put(o)
		o.Intended = time.Now()
		rec.Started(o.Intended)
		c.Do(ctx, req, o)
		rec.Record(o, time.Now())
		if !o.OK() || o.TokenEvents != tokens {
			return fmt.Errorf("%s: %v (%d token events)", o.Class, o.Err, o.TokenEvents)
		}
		return nil
	}, nil
}

// bareStreamer is the least a client can do: send the request and drain
// the body.
func bareStreamer(url string, streams, tokens int) func(context.Context) error {
	tr := &http.Transport{MaxIdleConnsPerHost: streams, DisableCompression: true}
	hc := &http.Client{Transport: tr}
	body := bareBody(tokens)
	bufs := sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/completions", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		buf := bufs.Get().(*[]byte)
		defer bufs.Put(buf)
		var n int64
		for {
			k, err := resp.Body.Read(*buf)
			n += int64(k)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
		}
		// Not a parse, only a sanity check that a stream came: every
		// token event of either server is longer than 64 bytes.
		if n < int64(64*tokens) {
			return fmt.Errorf("a response of %d bytes for %d tokens", n, tokens)
		}
		return nil
	}
}

package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/workload"
)

// memCmd opens -streams streams against a server started with -hold (each
// stream has its first token and waits for the rest), and reports what the
// process grew by, per stream: live heap, goroutine stacks, and resident
// memory. llmslo's streams go through the dispatcher, the client and the
// recorder, as in a run; the bare ones are a goroutine draining a body.
func memCmd(args []string) error {
	fs := flag.NewFlagSet("mem", flag.ExitOnError)
	url := fs.String("url", "http://127.0.0.1:8101", "server started with -hold")
	bare := fs.Bool("bare", false, "bare draining streams instead of llmslo's")
	streams := fs.Int("streams", 2000, "streams in flight")
	tokens := fs.Int("tokens", 256, "tokens each stream asks for")
	out := fs.String("out", "", "append the result to this file")
	_ = fs.Parse(args)
	label := map[bool]string{true: "bare", false: "llmslo"}[*bare]

	before := memNow()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	if *bare {
		body := bareBody(*tokens)
		hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *streams, DisableCompression: true}}
		for range *streams {
			wg.Go(func() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, *url+"/v1/completions", bytes.NewReader(body))
				resp, err := hc.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
		}
	} else {
		c, err := client.New(client.Config{BaseURL: *url, Model: "bench"})
		if err != nil {
			return err
		}
		wl := workload.WorkloadFunc(func(i int) workload.Request {
			return workload.Request{Index: i, PromptIDs: promptIDs, InputTokens: len(promptIDs), OutputTokens: *tokens}
		})
		start := time.Now()
		rec := observe.NewRecorder(start, time.Hour, observe.PerRequestLimits{}, observe.LengthCheck{})
		// A thousand a second: fast enough to be quick, slow enough that
		// the server accepts every connection as it comes.
		sched := arrival.ConstantSchedule(1000, time.Duration(*streams)*time.Millisecond)
		d := dispatch.OpenLoop{Schedule: sched, Start: start, Workload: wl, Sink: rec, Sender: dispatch.Sender{Doer: c, DrainTimeout: time.Hour}}
		wg.Go(func() { _, _ = d.Run(ctx) })
	}
	if err := waitOpen(*url, *streams, time.Duration(*streams)*time.Millisecond+30*time.Second); err != nil {
		return err
	}
	after := memNow()
	cancel()
	wg.Wait()
	per := func(k string) float64 { return (after[k] - before[k]) / float64(*streams) / 1024 }
	return emit(*out, result{Kind: "mem", Label: label, Vals: map[string]float64{
		"streams":            float64(*streams),
		"heap_kib_per_str":   per("heap"),
		"stacks_kib_per_str": per("stacks"),
		"rss_kib_per_str":    per("rss"),
	}})
}

// waitOpen polls the server until n streams are held open.
func waitOpen(url string, n int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		resp, err := http.Get(url + "/open")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if k, _ := strconv.Atoi(strings.TrimSpace(string(b))); k >= n {
			time.Sleep(200 * time.Millisecond) // the last first tokens read
			return nil
		}
	}
	return fmt.Errorf("fewer than %d streams open after %v", n, limit)
}

// memNow collects garbage, then reads the live heap, the goroutine stacks
// and the resident set.
func memNow() map[string]float64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	m := map[string]float64{"heap": float64(s[0].Value.Uint64()), "stacks": float64(s[1].Value.Uint64())}
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		var size, res int64
		if _, err := fmt.Sscan(string(b), &size, &res); err == nil {
			m["rss"] = float64(res * int64(os.Getpagesize()))
		}
	}
	return m
}

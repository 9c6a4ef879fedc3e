package observe

import (
	"errors"
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/workload"
)

// benchOutcome is a finished request as the client leaves it: tokens
// events 2 ms apart after a 40 ms TTFT, or a failure of class.
func benchOutcome(start time.Time, tokens int, class client.ErrorClass) *client.Outcome {
	o := &client.Outcome{
		Request:  workload.Request{InputTokens: 512, OutputTokens: tokens},
		Intended: start.Add(time.Second),
	}
	o.Sent = o.Intended.Add(80 * time.Microsecond)
	o.Written = o.Sent.Add(20 * time.Microsecond)
	if class != "" && class != client.ClassUnfinished {
		o.Class, o.Err = class, errors.New("bench")
		return o
	}
	o.First = o.Sent.Add(40 * time.Millisecond)
	o.Last = o.First
	for range tokens - 1 {
		o.ITL = append(o.ITL, 2*time.Millisecond)
		o.Last = o.Last.Add(2 * time.Millisecond)
	}
	o.TokenEvents, o.CompletionTokens, o.PromptTokens, o.UsageReported = tokens, tokens, 512, true
	o.Class = class
	return o
}

// BenchmarkRecord is one Started and one Record per op, for each kind of
// outcome: the recorder's cost per request. For streams, ns/token divides
// by the tokens (each inter-token gap is a histogram record).
func BenchmarkRecord(b *testing.B) {
	cases := []struct {
		name   string
		tokens int
		class  client.ErrorClass
	}{
		{"ok-1tok", 1, ""},
		{"ok-256tok", 256, ""},
		{"http_500", 0, client.HTTPStatusClass(500)},
		{"stall", 0, client.ClassStall},
		{"unfinished-256tok", 256, client.ClassUnfinished},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			start := time.Now()
			r := NewRecorder(start, time.Minute, PerRequestLimits{TTFT: time.Second}, LengthCheck{Tolerance: 0.01})
			o := benchOutcome(start, c.tokens, c.class)
			end := o.Last.Add(time.Millisecond)
			b.ReportAllocs()
			for b.Loop() {
				r.Started(o.Intended)
				r.Record(o, end)
			}
			if c.tokens > 1 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.tokens), "ns/token")
			}
		})
	}
}

// BenchmarkRecordParallel records one-token outcomes from every core at
// once: request goroutines share the recorder's lock.
func BenchmarkRecordParallel(b *testing.B) {
	start := time.Now()
	r := NewRecorder(start, time.Minute, PerRequestLimits{}, LengthCheck{Tolerance: 0.01})
	o := benchOutcome(start, 1, "")
	end := o.Last.Add(time.Millisecond)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.Started(o.Intended)
			r.Record(o, end)
		}
	})
}

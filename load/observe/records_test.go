package observe

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/workload"
)

// readRecords decodes a requests file, line by line.
func readRecords(t *testing.T, b []byte) []RequestRecord {
	t.Helper()
	var out []RequestRecord
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var r RequestRecord
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "%s", sc.Text())
		out = append(out, r)
	}
	return out
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// Every request gives one line, warm-up and dropped ones included, with
// times from the schedule start and null where the request never got.
func TestRecordsOneLinePerRequest(t *testing.T) {
	var buf bytes.Buffer
	recs := NewRecords(&buf)
	start := time.Now()
	rec := NewRecorder(start.Add(ms(100)), time.Second, PerRequestLimits{}, LengthCheck{})
	sr := recs.Tee(rec, "rate=4", start, start.Add(ms(100)))

	req := workload.Request{Index: 7, InputTokens: 8, OutputTokens: 4, Session: "s1", Agent: "planner", Turn: 2}
	ok := client.Outcome{Request: req, Intended: start.Add(ms(150)), Sent: start.Add(ms(150) + 12*time.Microsecond),
		First: start.Add(ms(200)), Last: start.Add(ms(230)), TokenEvents: 4, PromptTokens: 8, CompletionTokens: 4, UsageReported: true}
	sr.Started(ok.Intended)
	sr.Record(&ok, start.Add(ms(231)))

	warm := client.Outcome{Request: workload.Request{Index: 3, InputTokens: 8, OutputTokens: 4}, Intended: start.Add(ms(50)),
		Sent: start.Add(ms(50)), First: start.Add(ms(90)), Last: start.Add(ms(100)), TokenEvents: 2, Class: client.ClassAbandoned}
	sr.Started(warm.Intended)
	sr.Record(&warm, start.Add(ms(101)))

	failed := client.Outcome{Request: workload.Request{Index: 8, InputTokens: 8}, Intended: start.Add(ms(300)),
		Sent: start.Add(ms(300)), Class: client.HTTPStatusClass(500)}
	sr.Started(failed.Intended)
	sr.Record(&failed, start.Add(ms(305)))

	sr.DroppedRequest(workload.Request{Index: 9, InputTokens: 16, OutputTokens: 4}, start.Add(ms(400)))
	require.NoError(t, recs.Flush())
	require.NoError(t, recs.Close())

	lines := readRecords(t, buf.Bytes())
	require.Len(t, lines, 4)
	f := func(v float64) *float64 { return &v }
	assert.Equal(t, RequestRecord{V: 1, Step: "rate=4", Index: 7, Session: "s1", Agent: "planner", Turn: 2,
		IntendedS: 0.15, SentS: f(0.150012), FirstTokenS: f(0.2), LastTokenS: f(0.23), DoneS: f(0.231),
		InputTokens: 8, OutputTokens: 4, Outcome: "ok"}, lines[0])
	assert.Equal(t, RequestRecord{V: 1, Step: "rate=4", Index: 3, Warmup: true,
		IntendedS: 0.05, SentS: f(0.05), FirstTokenS: f(0.09), LastTokenS: f(0.1), DoneS: f(0.101),
		InputTokens: 8, OutputTokens: 2, Outcome: "abandoned"}, lines[1], "no usage: the prompt asked for and the events seen")
	assert.Equal(t, RequestRecord{V: 1, Step: "rate=4", Index: 8, IntendedS: 0.3, SentS: f(0.3), DoneS: f(0.305),
		InputTokens: 8, Outcome: "http_500"}, lines[2])
	assert.Equal(t, RequestRecord{V: 1, Step: "rate=4", Index: 9, IntendedS: 0.4, InputTokens: 16, Outcome: "dropped"}, lines[3])
	assert.Contains(t, buf.String(), `"first_token_s":null`, "absent times are null, not missing")

	// The step's own figures saw the same requests, less the warm-up.
	s, _ := rec.Summary()
	assert.Equal(t, 1, s.Requests.Completed)
	assert.Equal(t, 1, s.Requests.Failed)
	assert.Equal(t, 1, s.Requests.Dropped)
	assert.Zero(t, s.Requests.Abandoned, "the abandoned request was in the warm-up")
}

// A session started in the warm-up sends turns into the measured window:
// through Turns they reach the records as warm-up, sent or dropped, and
// the step's figures never see them; a measured session's drop is written
// with its request.
func TestRecordsKeepUnmeasuredSessionTurns(t *testing.T) {
	var buf bytes.Buffer
	recs := NewRecords(&buf)
	start := time.Now()
	rec := NewRecorder(start.Add(ms(100)), time.Second, PerRequestLimits{}, LengthCheck{})
	turns := NewTurns(recs.Tee(rec, "rate=1", start, start.Add(ms(100))))

	late := client.Outcome{Request: workload.Request{Index: 1, Session: "a#1", Turn: 1, InputTokens: 8, OutputTokens: 2},
		Intended: start.Add(ms(300)), Sent: start.Add(ms(300)), First: start.Add(ms(320)), Last: start.Add(ms(330)), TokenEvents: 2}
	turns.Unmeasured(&late, start.Add(ms(331)))
	turns.UnmeasuredDrop(workload.Request{Index: 1, Session: "a#1", Turn: 2, InputTokens: 9}, start.Add(ms(400)))
	turns.DroppedRequest(workload.Request{Index: 2, Session: "b#2", InputTokens: 5}, start.Add(ms(500)))
	require.NoError(t, recs.Close())

	lines := readRecords(t, buf.Bytes())
	require.Len(t, lines, 3)
	f := func(v float64) *float64 { return &v }
	assert.Equal(t, RequestRecord{V: 1, Step: "rate=1", Index: 1, Session: "a#1", Turn: 1, Warmup: true,
		IntendedS: 0.3, SentS: f(0.3), FirstTokenS: f(0.32), LastTokenS: f(0.33), DoneS: f(0.331),
		InputTokens: 8, OutputTokens: 2, Outcome: "ok"}, lines[0], "warm-up, though intended after the window opened")
	assert.Equal(t, RequestRecord{V: 1, Step: "rate=1", Index: 1, Session: "a#1", Turn: 2, Warmup: true,
		IntendedS: 0.4, InputTokens: 9, Outcome: "dropped"}, lines[1])
	assert.Equal(t, RequestRecord{V: 1, Step: "rate=1", Index: 2, Session: "b#2", IntendedS: 0.5, InputTokens: 5, Outcome: "dropped"}, lines[2])

	s, _ := rec.Summary()
	assert.Zero(t, s.Requests.Completed, "the warm-up session's turn is not measured")
	assert.Equal(t, 1, s.Requests.Dropped, "the measured drop is")
}

// blockingWriter holds every write until released.
type blockingWriter struct{ release chan struct{} }

func (w *blockingWriter) Write(p []byte) (int, error) { <-w.release; return len(p), nil }

// A writer that cannot keep up never holds a request goroutine: records
// beyond the buffer are dropped, counted, and Close says so.
func TestRecordsNeverBlockTheSender(t *testing.T) {
	w := &blockingWriter{release: make(chan struct{})}
	recs := NewRecords(w)
	sr := recs.Tee(NewRecorder(time.Now(), time.Second, PerRequestLimits{}, LengthCheck{}), "rate=1", time.Now(), time.Now())
	o := client.Outcome{Intended: time.Now(), Sent: time.Now()}
	t0 := time.Now()
	for range RecordsBuffer + 5000 {
		sr.Record(&o, time.Now())
	}
	assert.Less(t, time.Since(t0), 2*time.Second, "adding never waits for the writer")
	assert.Positive(t, recs.Dropped())
	close(w.release)
	err := recs.Close()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "records dropped")
}

// A second of 10,000 req/s, handed over at once from many goroutines,
// fits in the buffer: nothing is dropped even before the writer runs.
func TestRecordsKeepUpWithTenThousandPerSecond(t *testing.T) {
	recs := NewRecords(io.Discard)
	sr := recs.Tee(NewRecorder(time.Now(), time.Second, PerRequestLimits{}, LengthCheck{}), "rate=10000", time.Now(), time.Now())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10000 / 8 {
				o := client.Outcome{Intended: time.Now(), Sent: time.Now(), First: time.Now(), Last: time.Now(), TokenEvents: 1}
				sr.Started(o.Intended)
				sr.Record(&o, time.Now())
			}
		})
	}
	wg.Wait()
	require.NoError(t, recs.Close())
	assert.Zero(t, recs.Dropped())
}

// BenchmarkRecordsWriter measures how many records a second the writer
// encodes and writes: far above the 10,000 req/s it must keep up with.
func BenchmarkRecordsWriter(b *testing.B) {
	recs := NewRecords(io.Discard)
	start := time.Now()
	p := pendingRecord{step: "rate=10000", req: requestID{index: 1}, intended: ms(1), sent: ms(1), first: ms(40),
		last: ms(900), done: ms(901), inputTokens: 1000, outputTokens: 200}
	for b.Loop() {
		recs.ch <- p // blocking: the writer's own pace
	}
	require.NoError(b, recs.Close())
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
}

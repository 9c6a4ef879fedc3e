package observe

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/workload"
)

// RecordsVersion is the version of the per-request records' format
// (docs/requests.md), carried by every line as "v". Fields may be added
// without changing it; renaming, removing or redefining one changes it.
const RecordsVersion = 1

// RecordsBuffer is how many records may wait for the writer. A record is
// about 150 bytes; 1<<15 of them cover three seconds at 10,000 req/s with
// the writer stalled altogether, while it writes several hundred thousand
// a second when it runs.
const RecordsBuffer = 1 << 15

// RequestRecord is one line of a requests file: one request of a step.
// Times are seconds from the step's schedule start (its warm-up included),
// to the microsecond; a time the request never reached is null.
type RequestRecord struct {
	V       int    `json:"v"`
	Step    string `json:"step"`
	Index   int    `json:"index"`
	Session string `json:"session"`
	Agent   string `json:"agent"`
	Turn    int    `json:"turn"`
	Warmup  bool   `json:"warmup"`

	IntendedS   float64  `json:"intended_s"`
	SentS       *float64 `json:"sent_s"`
	FirstTokenS *float64 `json:"first_token_s"`
	LastTokenS  *float64 `json:"last_token_s"`
	DoneS       *float64 `json:"done_s"`

	InputTokens  int    `json:"input_tokens"`
	OutputTokens int    `json:"output_tokens"`
	Outcome      string `json:"outcome"`
}

// OutcomeOK is the outcome of a request that completed.
const OutcomeOK = "ok"

// Records writes per-request records as JSON lines. Request goroutines
// hand records over through a buffered channel and never wait: when the
// buffer is full the record is dropped and counted (Dropped), so writing
// can never slow a send. One goroutine encodes and writes them.
type Records struct {
	ch      chan pendingRecord
	w       *bufio.Writer
	file    io.Closer // nil unless CreateRecords opened it
	done    chan struct{}
	dropped atomic.Int64

	mu     sync.RWMutex // held for reading to add, for writing to close
	closed bool

	errMu sync.Mutex
	err   error // the first write error
}

// absent marks a time the request never reached.
const absent = time.Duration(math.MinInt64)

// pendingRecord is what a request goroutine hands over: no encoding, no
// allocation. A non-nil flush asks the writer to flush and close it.
type pendingRecord struct {
	step                        string
	req                         requestID
	warmup                      bool
	intended, sent, first, last time.Duration
	done                        time.Duration
	inputTokens, outputTokens   int
	outcome                     client.ErrorClass
	flush                       chan struct{}
}

type requestID struct {
	index          int
	session, agent string
	turn           int
}

// NewRecords writes records to w until Close.
func NewRecords(w io.Writer) *Records {
	r := &Records{ch: make(chan pendingRecord, RecordsBuffer), w: bufio.NewWriterSize(w, 64<<10), done: make(chan struct{})}
	go r.loop()
	return r
}

// CreateRecords creates (or truncates) the file at path, and its directory,
// and writes records to it until Close.
func CreateRecords(path string) (*Records, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("requests file: %w", err)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("requests file: %w", err)
	}
	r := NewRecords(f)
	r.file = f
	return r, nil
}

func (r *Records) loop() {
	defer close(r.done)
	enc := json.NewEncoder(r.w)
	enc.SetEscapeHTML(false)
	var line RequestRecord
	var sent, first, last, done float64
	for p := range r.ch {
		if p.flush != nil {
			r.setErr(r.w.Flush())
			close(p.flush)
			continue
		}
		line = RequestRecord{
			V: RecordsVersion, Step: p.step, Index: p.req.index, Session: p.req.session, Agent: p.req.agent,
			Turn: p.req.turn, Warmup: p.warmup, IntendedS: seconds(p.intended),
			SentS: orNull(p.sent, &sent), FirstTokenS: orNull(p.first, &first),
			LastTokenS: orNull(p.last, &last), DoneS: orNull(p.done, &done),
			InputTokens: p.inputTokens, OutputTokens: p.outputTokens, Outcome: OutcomeOK,
		}
		if p.outcome != "" {
			line.Outcome = string(p.outcome)
		}
		r.setErr(enc.Encode(&line))
	}
	r.setErr(r.w.Flush())
}

func seconds(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e6 }

func orNull(d time.Duration, v *float64) *float64 {
	if d == absent {
		return nil
	}
	*v = seconds(d)
	return v
}

func (r *Records) setErr(err error) {
	if err == nil {
		return
	}
	r.errMu.Lock()
	if r.err == nil {
		r.err = fmt.Errorf("requests file: %w", err)
	}
	r.errMu.Unlock()
}

func (r *Records) firstErr() error {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.err
}

// add hands a record to the writer without waiting.
func (r *Records) add(p pendingRecord) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		r.dropped.Add(1)
		return
	}
	select {
	case r.ch <- p:
	default:
		r.dropped.Add(1)
	}
}

// Dropped is how many records were lost to a full buffer.
func (r *Records) Dropped() int64 { return r.dropped.Load() }

// Flush waits until every record handed over so far is written, and
// returns the first write error. It may wait for the writer: call it
// between steps, not while one runs.
func (r *Records) Flush() error {
	r.mu.RLock()
	if r.closed {
		r.mu.RUnlock()
		return r.firstErr()
	}
	ack := make(chan struct{})
	r.ch <- pendingRecord{flush: ack}
	r.mu.RUnlock()
	<-ack
	return r.firstErr()
}

// Close writes what is pending and closes the file. It returns the first
// write error, or says how many records were dropped: a file missing lines
// is not the file asked for. Calling it again returns the same.
func (r *Records) Close() error {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.ch)
		<-r.done
		if r.file != nil {
			r.setErr(r.file.Close())
		}
	}
	r.mu.Unlock()
	err := r.firstErr()
	if n := r.Dropped(); n > 0 {
		err = errors.Join(err, fmt.Errorf("requests file: %d records dropped: the writer could not keep up", n))
	}
	return err
}

// Tee returns the sink the dispatcher uses for one step: it passes
// everything to rec and writes each request's record, named step, with
// times from start (the schedule's offset zero). Requests due before
// measureFrom are the warm-up: rec ignores them, the records mark them.
func (r *Records) Tee(rec *Recorder, step string, start, measureFrom time.Time) *RecordsTee {
	return &RecordsTee{rec: rec, records: r, step: step, start: start, measureFrom: measureFrom}
}

// RecordsTee is a dispatch recorder that passes what it sees to a step's
// Recorder and writes a record of each request to Records.
type RecordsTee struct {
	rec         *Recorder
	records     *Records
	step        string
	start       time.Time
	measureFrom time.Time
}

// Started passes the send on.
func (tee *RecordsTee) Started(intended time.Time) { tee.rec.Started(intended) }

// Dropped passes a drop on; the dispatcher calls DroppedRequest instead,
// which also writes the request's record.
func (tee *RecordsTee) Dropped(intended time.Time) { tee.rec.Dropped(intended) }

// DroppedRequest passes a drop on and writes the record of a request the
// in-flight cap kept from being sent.
func (tee *RecordsTee) DroppedRequest(req workload.Request, intended time.Time) {
	tee.rec.Dropped(intended)
	tee.writeDrop(req, intended, intended.Before(tee.measureFrom))
}

// UnmeasuredDrop writes the record of a dropped turn of a session started
// in the warm-up; the step's Recorder does not hear of it.
func (tee *RecordsTee) UnmeasuredDrop(req workload.Request, intended time.Time) {
	tee.writeDrop(req, intended, true)
}

func (tee *RecordsTee) writeDrop(req workload.Request, intended time.Time, warmup bool) {
	tee.records.add(pendingRecord{
		step: tee.step, req: idOf(req), warmup: warmup,
		intended: intended.Sub(tee.start), sent: absent, first: absent, last: absent, done: absent,
		inputTokens: req.InputTokens, outcome: client.ClassDropped,
	})
}

// Record passes a finished request on and writes its record.
func (tee *RecordsTee) Record(o *client.Outcome, at time.Time) {
	tee.rec.Record(o, at)
	tee.write(o, at, o.Intended.Before(tee.measureFrom))
}

// Unmeasured writes the record of a turn of a session started in the
// warm-up, marked as warm-up whenever it was sent; the step's Recorder
// hears of it only through WarmupEnded, for progress.
func (tee *RecordsTee) Unmeasured(o *client.Outcome, at time.Time) { tee.write(o, at, true) }

// WarmupEnded passes a finished warm-up session turn on, for progress.
func (tee *RecordsTee) WarmupEnded(o *client.Outcome) { tee.rec.WarmupEnded(o) }

func (tee *RecordsTee) write(o *client.Outcome, at time.Time, warmup bool) {
	p := pendingRecord{
		step: tee.step, req: idOf(o.Request), warmup: warmup,
		intended: o.Intended.Sub(tee.start), sent: tee.since(o.Sent), first: tee.since(o.First), last: tee.since(o.Last),
		done: at.Sub(tee.start), inputTokens: o.Request.InputTokens, outputTokens: o.TokenEvents, outcome: o.Class,
	}
	// The server's own counts when it gave them; the prompt asked for and
	// the token events received when it did not (a stream cut before its
	// usage chunk).
	if o.UsageReported {
		p.inputTokens, p.outputTokens = o.PromptTokens, o.CompletionTokens
	}
	tee.records.add(p)
}

func (tee *RecordsTee) since(t time.Time) time.Duration {
	if t.IsZero() {
		return absent
	}
	return t.Sub(tee.start)
}

func idOf(req workload.Request) requestID {
	return requestID{index: req.Index, session: req.Session, agent: req.Agent, turn: req.Turn}
}

package client

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"
)

// call holds what one request needs beside its context and its
// *http.Request, allocated once and reused: at thousands of requests a
// second the trace, its hook, the watchdog, the activity reader, the body's
// reader and header values were a dozen allocations a request.
//
// A call is reused only once nothing can reach it any more: the transport
// has reported the body written (after which it calls no hook of ours and
// never rewinds the body), and the watchdog's timer was stopped before it
// fired (so no firing is in flight).
type call struct {
	written atomic.Int64 // when the body's last byte was written, from dog.epoch; 0 before
	trace   httptrace.ClientTrace
	wrote   func(httptrace.WroteRequestInfo)
	dog     watchdog
	act     activityReader
	payload []byte
	reader  bytes.Reader
	body    io.ReadCloser // reader, behind a no-op Close
	rewind  func() (io.ReadCloser, error)
	request http.Request // the template a send copies with its context
	pool    *sync.Pool   // the client's, which release returns it to
}

// newPooledCall makes a call for a client's pool. The pool is the
// client's, not the process's: a watchdog's timer belongs to the
// testing/synctest bubble it was made in, if any, and must not be reset
// from another.
func newPooledCall() any {
	k := &call{}
	k.wrote = func(httptrace.WroteRequestInfo) { k.written.Store(int64(time.Since(k.dog.epoch))) }
	k.rewind = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(k.payload)), nil }
	k.act.dog = &k.dog
	k.body = io.NopCloser(&k.reader)
	return k
}

// newCall readies a call for a POST of body to c's endpoint.
func (c *Client) newCall(body []byte) *call {
	k := c.calls.Get().(*call)
	k.pool = &c.calls
	k.written.Store(0)
	// Assigned whole each time: httptrace composes a trace found in the
	// caller's context into this one, which must not carry over.
	k.trace = httptrace.ClientTrace{WroteRequest: k.wrote}
	k.payload = body
	k.reader.Reset(body)
	// The URL and the header map are the client's, shared by every
	// request: the transport only reads them.
	k.request = http.Request{
		Method:        http.MethodPost,
		URL:           c.url,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        c.header,
		Host:          c.url.Host,
		ContentLength: int64(len(body)),
		// A *bytes.Reader (io.NopCloser of one is recognised): the transport
		// then writes the headers and the body in one write; it flushes the
		// headers apart for any other reader.
		Body:    k.body,
		GetBody: k.rewind,
	}
	return k
}

// release ends the call's watchdog and returns k for reuse when nothing
// can reach it any more. The next newCall overwrites the rest.
func (k *call) release() {
	if !k.dog.stop() || k.written.Load() == 0 {
		return
	}
	k.payload, k.act.r, k.dog.cancel = nil, nil, nil
	k.pool.Put(k)
}

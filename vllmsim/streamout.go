package vllmsim

import (
	"net/http"
	"time"

	"github.com/llmslo/llmslo/vllmsim/drive"
	"github.com/llmslo/llmslo/vllmsim/wire"
)

// streamOut writes one request's SSE stream as the engine produces its
// tokens, applying the request's drawn faults on the way.
type streamOut struct {
	s        *Server
	w        http.ResponseWriter
	rc       *http.ResponseController
	r        *http.Request
	st       *drive.Stream
	req      wire.Request
	fd       faultDraw
	f        *wire.ChunkFormat
	h        uint64
	buf      []byte // written at the next flush
	sent     int    // tokens sent
	events   int    // token events sent
	roleSent bool
}

// writeStream sends the tokens as SSE chunks as the engine produces them.
// Tokens that piled up while the client was slow go out as separate chunks
// in one write.
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, st *drive.Stream, req wire.Request, fd faultDraw, f *wire.ChunkFormat, h uint64) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	o := &streamOut{s: s, w: w, rc: http.NewResponseController(w), r: r, st: st, req: req, fd: fd, f: f, h: h}
	if fd.earlyRole {
		o.buf = f.AppendEarly(o.buf)
		o.roleSent = f.Chat()
	}
	if !o.flush() {
		return
	}
	for {
		produced, done := st.Progress()
		for o.sent < produced {
			n := min(fd.perEvent, produced-o.sent)
			if n < fd.perEvent && !done {
				break // an event of several tokens waits for all of them
			}
			if !o.faults(false) || !o.pace() {
				return
			}
			if f.Chat() && !o.roleSent {
				o.buf = f.AppendRole(o.buf)
				o.roleSent = true
			}
			reason := ""
			if done && o.sent+n == produced {
				reason = st.FinishReason
			}
			o.buf = f.AppendEvent(o.buf, h, o.sent, n, reason)
			o.sent += n
			o.events++
		}
		if done && o.sent == produced {
			o.finish()
			return
		}
		if !o.flush() || !s.wait(r, st) {
			return
		}
	}
}

// finish ends a stream whose tokens are all sent: the faults still due,
// the usage chunk, [DONE].
func (o *streamOut) finish() {
	if !o.faults(true) {
		return
	}
	if o.req.IncludeUsage && !o.fd.noUsage {
		o.buf = o.f.AppendUsage(o.buf, len(o.req.Prompt), o.sent, o.s.cachedTokens(o.st))
	}
	if !o.fd.noDone {
		o.buf = o.f.AppendDone(o.buf)
	}
	o.flush()
}

// faults applies the positional faults due before the next token event
// (all that are left when final); it reports false when the stream ended.
func (o *streamOut) faults(final bool) bool {
	due := func(after int) bool { return after != never && (final || o.sent >= after) }
	if due(o.fd.disconnect) {
		o.cut()
	}
	if due(o.fd.errorEvent) {
		o.buf = o.f.AppendError(o.buf)
		if !o.fd.noDone {
			o.buf = o.f.AppendDone(o.buf)
		}
		o.flush()
		o.s.loop.AbortAs(o.st, "error")
		return false
	}
	if due(o.fd.stall) {
		o.fd.stall = never
		if !o.flush() || !o.s.pause(o.r, o.s.Config.Faults.StallFor) {
			return false
		}
	}
	if due(o.fd.malformed) {
		o.fd.malformed = never
		o.buf = o.f.AppendMalformed(o.buf)
	}
	return true
}

// pace holds the next token event until its paced time, if pacing is on.
// The events before it are written first even when it is already due, so a
// paced stream never coalesces events: a late server still sends them one
// write at a time, and a client reads one event per read.
func (o *streamOut) pace() bool {
	at := o.s.pacedAt(o.st, o.events)
	if at.IsZero() {
		return true
	}
	if !o.flush() {
		return false
	}
	wait := time.Until(at)
	return wait <= 0 || o.s.pause(o.r, wait)
}

// pacedAt is when token event k may go out under Faults.PacedTTFT and
// PacedITL; zero when pacing is off.
func (s *Server) pacedAt(st *drive.Stream, k int) time.Time {
	f := s.Config.Faults
	if f.PacedTTFT == 0 && f.PacedITL == 0 {
		return time.Time{}
	}
	return st.Arrival.Add(f.PacedTTFT + time.Duration(max(k, 0))*f.PacedITL)
}

// flush writes what is pending; it reports false when the client is gone.
func (o *streamOut) flush() bool {
	if len(o.buf) > 0 {
		if _, err := o.w.Write(o.buf); err != nil {
			return false
		}
		o.buf = o.buf[:0]
	}
	return o.rc.Flush() == nil
}

// cut writes what is pending and drops the connection without ending the
// response, as a crashed server or a broken network would.
func (o *streamOut) cut() {
	_, _ = o.w.Write(o.buf)
	_ = o.rc.Flush()
	o.s.loop.Abort(o.st)
	panic(http.ErrAbortHandler)
}

package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// readStream reads events until [DONE], the end of the stream or a failure,
// and reports whether it saw [DONE].
func (c *Client) readStream(parent, ctx context.Context, sr *streamReader, act *activityReader, out *Outcome) (done bool) {
	var (
		ch    chunk
		tally streamTally
	)
	for {
		data, err := sr.sse.Next()
		if err != nil {
			if err == io.EOF {
				break
			}
			if errors.Is(err, ErrSSELineTooLong) {
				out.Class, out.Err = ClassMalformed, err
				return
			}
			out.Class = c.classifyContext(parent, ctx, ClassReset)
			out.Err = fmt.Errorf("stream broke after %d token events: %w", out.TokenEvents, err)
			return
		}
		now := act.at // the read that brought the event's last byte
		if string(data) == "[DONE]" {
			done = true
			break
		}
		if !sr.decode(data, &ch, out) {
			return
		}
		if ch.failed {
			out.Class = ClassServerError
			out.Err = fmt.Errorf("server error in stream after %d token events: %s", out.TokenEvents, snippet(ch.message))
			out.Message = eventMessage(ch.message)
			return
		}
		tally.add(&ch, now, out)
	}
	tally.finish(out)
	return done
}

// decode reads one event's data into ch, through the learnt template when
// it matches; a chunk it cannot parse fails out as malformed.
func (sr *streamReader) decode(data []byte, ch *chunk, out *Outcome) bool {
	if tokens, ok := sr.tmpl.match(data); ok {
		*ch = chunk{tokens: tokens}
		return true
	}
	if err := parseChunk(data, ch); err != nil {
		out.Class, out.Err = ClassMalformed, fmt.Errorf("%w: %q", err, snippet(data))
		return false
	}
	sr.tmpl.learn(data, ch)
	if ch.hasUsage && ch.prompt == 0 && ch.completion == 0 && !ch.hasCached {
		ch.hasUsage = false // Ollama's zeros on every event before the real usage count nothing
	}
	return true
}

// streamTally is what a stream's events add up to beyond the Outcome's
// own fields: what the usage said so far, to count multi-token events.
type streamTally struct {
	lastCompletion int  // completion_tokens of the last per-event usage
	perEventUsage  bool // usage arrived with token events
	silentStop     int  // stop chunks without text: a token (EOS) no event carried
}

// add counts one event received at now.
func (t *streamTally) add(ch *chunk, now time.Time, out *Outcome) {
	if ch.stopped && !ch.tokens {
		t.silentStop = 1
	}
	if ch.tokens {
		if out.TokenEvents == 0 {
			out.First = now
			if out.OnFirst != nil {
				out.OnFirst(now)
			}
		} else {
			out.ITL = append(out.ITL, now.Sub(out.Last))
		}
		out.Last = now
		out.TokenEvents++
		if ch.hasUsage {
			// Continuous usage: the server says how many tokens this
			// event carried.
			if ch.completion-t.lastCompletion > 1 {
				out.MultiTokenEvents++
			}
			t.perEventUsage = true
		}
	}
	if ch.hasUsage {
		t.lastCompletion = ch.completion
		out.UsageReported = true
		out.PromptTokens = ch.prompt
		out.CompletionTokens = ch.completion
		if ch.hasCached {
			out.CachedPromptTokens, out.CachedReported = ch.cached, true
		}
	}
}

// finish settles the token counts once the stream has ended; a stream that
// carried no token fails out.
func (t *streamTally) finish(out *Outcome) {
	if out.TokenEvents == 0 {
		out.Class = ClassNoTokens
		out.Err = fmt.Errorf("stream ended with no token events (usage completion_tokens %d)", out.CompletionTokens)
		return
	}
	if !out.UsageReported {
		out.CompletionTokens = out.TokenEvents
		return
	}
	out.TrailingTokens = t.silentStop
	if extra := out.CompletionTokens - t.silentStop - out.TokenEvents; !t.perEventUsage && extra > 0 {
		// Usage only at the end: the events carried CompletionTokens −
		// TokenEvents tokens more than one each, less the end-of-sequence
		// token a stop chunk without text accounts for (vLLM counts it
		// in completion_tokens). That is the number of multi-token events
		// when each carried at most two, and an upper bound on it
		// otherwise.
		out.MultiTokenEvents = extra
	}
}

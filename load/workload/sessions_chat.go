package workload

import (
	"context"
	"strings"

	"github.com/llmslo/llmslo/fixtures"
)

// Message is one message of a chat conversation. It is an alias of an
// unnamed struct so that a tokenizer (vllmapi's) can implement
// ChatTokenizer without importing this package.
type Message = struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatTokenizer counts the prompt tokens of a whole conversation as the
// chat endpoint renders it, template included. A Tokenizer that also
// implements it (vllmapi.HTTPTokenizer does) makes session turns exact on
// the chat API; without it they rest on the text model's estimate.
type ChatTokenizer interface {
	CountChat(ctx context.Context, msgs []Message) (int, error)
}

// chatMessages is turn t's conversation. A turn that extends its thread's
// context resends the messages the previous turn sent, unchanged, then the
// stand-in of the previous output as an assistant message, then a new user
// message; only that last message is sized (measured through a
// ChatTokenizer) so that the whole prompt has the turn's Input tokens.
// Each message's words come from the turn that first sent it, so the
// conversation, and so its rendered prefix, stays the same turn after turn.
func (s *Sessions) chatMessages(ctx context.Context, i int, fs *fixtures.Session, t int) []Message {
	n := s.nodes[fs]
	var msgs []Message
	for j := n.context[t]; j <= t; j++ {
		q := s.seq(i, fs, j)
		start := 0
		var prev *fixtures.Turn
		if j > n.context[t] {
			prev = &fs.Turns[j-1]
			msgs = append(msgs, Message{Role: "assistant", Content: seqWords(q, prev.Input, prev.Input+prev.Output)})
			start = prev.Input + prev.Output
		}
		c := s.userMessage(ctx, turnKey{i, n, j}, q, start, msgs, prev, fs.Turns[j].Input)
		msgs = append(msgs, Message{Role: "user", Content: seqText(q, start, c.words, c.pad)})
	}
	return msgs
}

// userMessage sizes the last user message of a turn once, and keeps the
// result, measured or not: the next turns resend that message as it was.
func (s *Sessions) userMessage(ctx context.Context, k turnKey, q turnSeq, start int, hist []Message, prev *fixtures.Turn, target int) calibration {
	s.mu.Lock()
	c, ok := s.chat[k]
	s.mu.Unlock()
	if ok {
		return c
	}
	g := s.g
	var one, whole Tokenizer
	if t := g.opts.Tokenizer; t != nil {
		one = TokenizerFunc(func(ctx context.Context, text string) (int, error) {
			ctx, cancel := context.WithTimeout(ctx, g.opts.TokenizeTimeout)
			defer cancel()
			return t.CountTokens(ctx, text)
		})
		if ct, ok := t.(ChatTokenizer); ok {
			hist := hist[:len(hist):len(hist)]
			whole = TokenizerFunc(func(ctx context.Context, last string) (int, error) {
				ctx, cancel := context.WithTimeout(ctx, g.opts.TokenizeTimeout)
				defer cancel()
				return ct.CountChat(ctx, append(hist, Message{Role: "user", Content: last}))
			})
		}
	}
	// The search starts from the text model, with the history's tokens
	// estimated as the previous prompt (exact when it was measured), the
	// output stand-in, and one more message's template.
	m := g.textModel(ctx, one)
	if prev != nil {
		tpw := m.TokensPerWord
		if !(tpw > 0) {
			tpw = 1
		}
		m.Overhead += float64(prev.Input) + float64(prev.Output)*tpw + max(m.Overhead, 2)
	}
	c = calibrate(ctx, whole, m, target, g.opts.CalibrationTries, func(w, pad int) string {
		return seqText(q, start, w, pad)
	})
	s.mu.Lock()
	if prev, ok := s.chat[k]; ok {
		s.mu.Unlock()
		return prev // built meanwhile by another caller: keep one version
	}
	s.chat[k] = c
	s.mu.Unlock()
	g.mu.Lock()
	g.stats.add(c)
	g.mu.Unlock()
	return c
}

// seqWords is the text of positions [from, to): one word per position.
func seqWords(q turnSeq, from, to int) string {
	var b strings.Builder
	q.each(from, to, func(st *stream) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[st.below(len(words))])
	})
	return b.String()
}

// seqText is w words from position start, then pad one-token words.
func seqText(q turnSeq, start, w, pad int) string {
	s := seqWords(q, start, start+w)
	if pad > 0 {
		s += strings.Repeat(" "+padWord, pad)
	}
	return s
}

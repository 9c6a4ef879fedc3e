package workload

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/llmslo/llmslo/fixtures"
)

// Sessions turns a fixture's sessions into the requests of a replay
// (docs/sessions.md). Arrival i of a run replays one top-level session
// (row i mod n in order for a trace replay, a seeded permutation draw
// otherwise) with its sub-agents; TurnRequest builds each turn's prompt.
//
// Prompts grow as the recorded ones did. With hash ids (the fixture has a
// block size), position p of a turn's prompt is token p mod BlockSize of
// block p/BlockSize, whose content comes from its hash id alone, so equal
// ids are equal tokens within the session and the blocks that a turn
// resends are the previous turn's blocks. Without hash ids, a turn's prompt
// is the first Input tokens of its thread's context: the previous prompt,
// then a stand-in of the previous output's length, then new tokens; a
// turn whose input is shorter than that (the client trimmed or restarted
// the context) starts a new context. Either way the prompt has exactly
// Input tokens on the completions API.
//
// Each replayed session has its own salt, mixed from the run's salt, the
// seed and i: sessions share nothing with each other or with another run,
// while a session and its sub-agents share their blocks.
type Sessions struct {
	g        *Generator
	roots    []*fixtures.Session
	hashed   bool // the fixture has hash ids
	nodes    map[*fixtures.Session]*sessionNode
	expected float64

	mu      sync.Mutex
	sampler *Sampler
	chat    map[turnKey]calibration // last user message of each chat turn, as sent
}

// sessionNode is what the replay keeps about one (sub-)session.
type sessionNode struct {
	index int // walk order within its tree: streams of a sub-agent differ from its parent's
	root  string
	agent string // the sub-session's id; empty for a top-level session
	// context[t] is the turn at which turn t's context began: t itself,
	// or an earlier turn whose context turn t extends.
	context []int
}

type turnKey struct {
	run  int
	node *sessionNode
	turn int
}

// chatSlack is the room a chat turn needs beyond the previous prompt and
// output for the template of two more messages; with less, the turn starts
// a new context rather than miss its exact length.
const chatSlack = 16

// ErrNoSessions is returned by Generator.Sessions for a fixture without
// sessions.
var ErrNoSessions = errors.New("the fixture has no sessions")

// Sessions prepares a session replay over the generator's fixture (clipped
// as the generator was), with its salt, seed, API and tokenizer.
func (g *Generator) Sessions() (*Sessions, error) {
	if g.fx.Sessions == nil {
		return nil, ErrNoSessions
	}
	s := &Sessions{g: g, roots: g.fx.Sessions, hashed: g.fx.BlockSize > 0,
		nodes: map[*fixtures.Session]*sessionNode{}, chat: map[turnKey]calibration{}}
	if !g.opts.InOrder {
		s.sampler = NewSampler(len(s.roots), g.opts.Seed)
	}
	slack := 0
	if g.opts.API == APIChat {
		slack = chatSlack
	}
	for _, root := range s.roots {
		k := 0
		fixtures.Walk([]*fixtures.Session{root}, func(fs *fixtures.Session) {
			n := &sessionNode{index: k, root: root.ID, context: make([]int, len(fs.Turns))}
			if fs != root {
				n.agent = fs.ID
			}
			for t := range fs.Turns {
				n.context[t] = t
				if t > 0 && s.extends(fs.Turns[t-1], fs.Turns[t], slack) {
					n.context[t] = n.context[t-1]
				}
			}
			s.nodes[fs] = n
			k++
		})
	}
	s.expected = s.expectedHitRate()
	return s, nil
}

// extends reports whether turn b resends turn a's context: its input holds
// a's prompt, output and slack, and (with hash ids) it starts with a's full
// blocks.
func (s *Sessions) extends(a, b fixtures.Turn, slack int) bool {
	if b.Input < a.Input+a.Output+slack {
		return false
	}
	if !s.hashed {
		return true
	}
	full := min(a.Input/s.g.fx.BlockSize, len(a.HashIDs))
	if len(b.HashIDs) < full {
		return false
	}
	for j := range full {
		if a.HashIDs[j] != b.HashIDs[j] {
			return false
		}
	}
	return true
}

// Len is the number of top-level sessions in the fixture.
func (s *Sessions) Len() int { return len(s.roots) }

// Session is the top-level session that arrival i replays.
func (s *Sessions) Session(i int) *fixtures.Session {
	if s.sampler == nil {
		return s.roots[((i%len(s.roots))+len(s.roots))%len(s.roots)]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.roots[s.sampler.Index(i)]
}

// ExpectedPrefixHitRate is the prefix-cache hit rate the replay implies
// inside sessions, for the warm_cache hazard. With hash ids it is the
// fixture's SessionStats.PrefixHitRate. Without them it follows the growth
// model: a turn that extends its thread's context finds the previous
// prompt cached (its output does not: the server generated other tokens
// than the stand-in), one that starts a new context finds nothing; hit
// tokens over prompt tokens, over every turn of every session.
func (s *Sessions) ExpectedPrefixHitRate() float64 { return s.expected }

func (s *Sessions) expectedHitRate() float64 {
	if s.hashed {
		return fixtures.StatsOfSessions(s.roots, s.g.fx.BlockSize).PrefixHitRate
	}
	var hit, total int64
	fixtures.Walk(s.roots, func(fs *fixtures.Session) {
		n := s.nodes[fs]
		for t, turn := range fs.Turns {
			total += int64(turn.Input)
			if n.context[t] != t {
				hit += int64(fs.Turns[t-1].Input)
			}
		}
	})
	if total == 0 {
		return 0
	}
	return float64(hit) / float64(total)
}

// TurnRequest builds turn t of fs, a session of the tree that arrival i
// replays (Session(i) or one of its sub-agents). It implements
// dispatch.SessionSource and is safe for concurrent use. On the chat API
// with a Tokenizer, a turn not prepared by PrepareSessions is measured now.
func (s *Sessions) TurnRequest(i int, fs *fixtures.Session, t int) Request {
	return s.turnRequest(context.Background(), i, fs, t)
}

// PrepareSessions builds every turn of the sessions that arrivals [from,
// to) replay, in order, so that chat prompts are measured before a step
// rather than on its send path. Completions prompts need no preparation.
func (s *Sessions) PrepareSessions(ctx context.Context, from, to int) error {
	if s.g.opts.API != APIChat || s.g.opts.Tokenizer == nil {
		return nil
	}
	for i := from; i < to; i++ {
		var err error
		fixtures.Walk([]*fixtures.Session{s.Session(i)}, func(fs *fixtures.Session) {
			for t := range fs.Turns {
				if err == nil {
					err = ctx.Err()
				}
				if err == nil {
					s.chatMessages(ctx, i, fs, t)
				}
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Sessions) turnRequest(ctx context.Context, i int, fs *fixtures.Session, t int) Request {
	n := s.nodes[fs]
	turn := fs.Turns[t]
	req := Request{Index: i, InputTokens: turn.Input, OutputTokens: turn.Output,
		Session: n.root + "#" + strconv.Itoa(i), Agent: n.agent, Turn: t}
	if s.g.opts.API == APIChat {
		req.Messages = s.chatMessages(ctx, i, fs, t)
		return req
	}
	q := s.seq(i, fs, t)
	span := s.g.opts.VocabMax - s.g.opts.VocabMin
	req.PromptIDs = make([]int, 0, turn.Input)
	q.each(0, turn.Input, func(st *stream) {
		req.PromptIDs = append(req.PromptIDs, s.g.opts.VocabMin+st.below(span))
	})
	return req
}

// sessionSalt keeps arrival i's session apart from every other session of
// the run and from other runs and seeds; its sub-agents share it.
func (s *Sessions) sessionSalt(i int) uint64 {
	return mix(mix(s.g.tokens.Salt, uint64(s.g.opts.Seed)), uint64(i)^0x73657373696f6e00)
}

// seq is the content of turn t's positions: the turn's blocks by hash id,
// then the turn's own stream; without hash ids, the stream of the context
// the turn belongs to, so that a turn extending it resends it unchanged.
func (s *Sessions) seq(i int, fs *fixtures.Session, t int) turnSeq {
	n := s.nodes[fs]
	salt := s.sessionSalt(i)
	thread := mix(salt, uint64(n.index)+1)
	if s.hashed {
		return turnSeq{salt: salt, bs: s.g.fx.BlockSize, ids: fs.Turns[t].HashIDs,
			own: stream(mix(thread, uint64(t)^0x7475726e))}
	}
	return turnSeq{own: stream(mix(thread, uint64(n.context[t])^0x636f6e74657874))}
}

// gamma is the SplitMix64 increment: advancing a stream by k draws adds
// k·gamma to its state, so any position is reached without drawing.
const gamma = 0x9e3779b97f4a7c15

// turnSeq yields the streams that give a turn's content, position by
// position: each position draws once.
type turnSeq struct {
	salt uint64
	bs   int
	ids  []uint64
	own  stream
}

// each calls f once per position in [from, to) with the stream positioned
// for it; f must draw exactly once.
func (q turnSeq) each(from, to int, f func(*stream)) {
	for p := from; p < to; {
		st, n := q.at(p)
		n = min(n, to-p)
		for range n {
			f(&st)
		}
		p += n
	}
}

// at is the stream for position p and how many positions from p it covers.
func (q turnSeq) at(p int) (stream, int) {
	if q.bs > 0 && p/q.bs < len(q.ids) {
		st := blockStream(q.salt, q.ids[p/q.bs])
		st += stream(uint64(p%q.bs) * gamma)
		return st, q.bs - p%q.bs
	}
	st := q.own + stream(uint64(p-len(q.ids)*q.bs)*gamma)
	return st, int(^uint(0) >> 1)
}

package engine

import (
	"fmt"
	"time"
)

// Config sizes the engine core.
type Config struct {
	MaxNumSeqs          int  // most sequences in one step
	MaxNumBatchedTokens int  // most tokens in one step (the chunked-prefill budget)
	BlockSize           int  // tokens per KV block
	NumBlocks           int  // KV blocks in the cache
	PrefixCaching       bool // reuse cached full blocks of equal prefixes
	// DisableChunkedPrefill admits a prompt only when all of it fits the
	// step's remaining token budget (--no-enable-chunked-prefill).
	DisableChunkedPrefill bool
	// PrefillFirst runs no decode while a waiting prompt can be admitted, as
	// vLLM's V0 scheduler did without chunked prefill.
	PrefillFirst bool
	// AsyncScheduling plans each step while the one before it runs, as
	// vLLM V1 does by default (docs/simulator.md, "The first token"): a
	// request that reaches the engine while a step runs misses the step
	// already planned and is first scheduled in the one after it.
	AsyncScheduling bool
	Profile         StepProfile
}

// Engine is the clock-free core of the simulator: a model of vLLM V1's
// scheduler. Schedule picks the next step's batch and says how long the step
// takes; Complete applies it. The caller owns time: tests advance a virtual
// clock by Batch.Duration, the server sleeps it. Engine is not safe for
// concurrent use.
type Engine struct {
	cfg     Config
	kv      *kvCache
	waiting []*Seq // FIFO; preempted sequences go back to the front
	// late holds, under AsyncScheduling, the sequences added while the
	// engine was busy: the next step was planned before they came, so they
	// join the waiting queue once it is scheduled.
	late    []*Seq
	running []*Seq // in admission order; the last is the preemption victim
	stats   Stats
	batch   Batch
	emitted []*Seq
}

// Stats are the engine's running totals and current gauges.
type Stats struct {
	Running, Waiting int
	KVUsage          float64 // 0..1
	// PrefixQueryTokens counts the tokens that new requests looked up in
	// the prefix cache, PrefixHitTokens those found: what vLLM exports as
	// vllm:prefix_cache_queries and _hits. A preempted request's lookup
	// when it resumes mostly finds its own blocks again; as in vLLM, it is
	// counted apart, in the Preempted… pair, which /metrics leaves out.
	PrefixQueryTokens          int64
	PrefixHitTokens            int64
	PreemptedPrefixQueryTokens int64
	PreemptedPrefixHitTokens   int64
	Preemptions                int64
	Steps                      int64
	PrefixCacheResets          int64
	PrefixCacheResetsRefused   int64 // resets refused while blocks were in use
	ScheduledTokens            int64
	GeneratedTokens            int64
	FinishedSeqs               int64
}

// Seq is one request inside the engine.
type Seq struct {
	ID      uint64
	prompt  []int32
	hashes  []uint64 // chained hashes of the prompt's full blocks
	target  int      // output tokens to generate before finishing
	out     int      // generated so far
	done    bool
	aborted bool

	computed    int // tokens in the KV cache (prompt and generated)
	registered  int // leading prompt blocks already published to the prefix cache
	blocks      []int32
	preemptions int
	scheduled   bool // scheduled at least once
	cached      int  // prompt tokens found in the prefix cache at the first scheduling
	// Owner is the server's handle on the sequence, for completions.
	Owner any
}

// NewSeq makes a sequence that generates exactly outputTokens tokens (at
// least one) after the prompt.
func NewSeq(id uint64, prompt []int32, outputTokens int) *Seq {
	return &Seq{ID: id, prompt: prompt, target: max(outputTokens, 1)}
}

// Generated is the number of tokens generated so far.
func (s *Seq) Generated() int { return s.out }

// Done reports whether the sequence has generated all its tokens.
func (s *Seq) Done() bool { return s.done }

// Preemptions counts how often the sequence was preempted.
func (s *Seq) Preemptions() int { return s.preemptions }

// CachedTokens is the number of prompt tokens found in the prefix cache
// when the sequence was first scheduled (usage's cached_tokens). It is
// fixed then, as vLLM V1 sets num_cached_tokens once: the hits of a
// recompute after preemption do not change it.
func (s *Seq) CachedTokens() int { return s.cached }

// Finished reports whether the sequence is done or aborted.
func (s *Seq) Finished() bool { return s.done || s.aborted }

// PromptLen is the prompt's length in tokens.
func (s *Seq) PromptLen() int { return len(s.prompt) }

// HashPrompt computes the prompt's block hashes for the prefix cache ahead
// of Add, so that the caller can do it outside the engine's lock.
func (s *Seq) HashPrompt(blockSize int) { s.hashes = blockHashes(s.prompt, blockSize) }

func (s *Seq) total() int { return len(s.prompt) + s.out }

// Batch is one step's plan.
type Batch struct {
	Entries       []BatchEntry
	Tokens        int    // tokens computed in the step
	ContextTokens int    // tokens already cached that the step reads
	Preempted     int    // sequences preempted while scheduling the step
	Admitted      []*Seq // sequences scheduled for the first time in this step
	Duration      time.Duration
}

// BatchEntry is one sequence's share of a step.
type BatchEntry struct {
	Seq    *Seq
	Tokens int
}

// New makes an engine; the configuration must be positive throughout.
func New(cfg Config) (*Engine, error) {
	if cfg.MaxNumSeqs <= 0 || cfg.MaxNumBatchedTokens <= 0 || cfg.BlockSize <= 0 || cfg.NumBlocks <= 0 {
		return nil, fmt.Errorf("vllmsim: engine sizes must be positive: %+v", cfg)
	}
	return &Engine{cfg: cfg, kv: newKVCache(cfg.NumBlocks, cfg.BlockSize, cfg.PrefixCaching)}, nil
}

// Add queues a sequence at the back of the waiting queue. Under
// AsyncScheduling a sequence added while sequences run (a step is under
// way) waits for the step after the next one: vLLM planned the next step
// when the running one was launched.
func (e *Engine) Add(s *Seq) {
	if e.cfg.PrefixCaching && s.hashes == nil {
		s.hashes = blockHashes(s.prompt, e.cfg.BlockSize)
	}
	if e.cfg.AsyncScheduling && len(e.running) > 0 {
		e.late = append(e.late, s)
		return
	}
	e.waiting = append(e.waiting, s)
}

// Abort removes a sequence wherever it is and frees its blocks.
func (e *Engine) Abort(s *Seq) {
	if s.done || s.aborted {
		return
	}
	s.aborted = true
	e.kv.release(s.blocks)
	s.blocks = s.blocks[:0]
	e.running = removeSeq(e.running, s)
	e.waiting = removeSeq(e.waiting, s)
	e.late = removeSeq(e.late, s)
}

func removeSeq(q []*Seq, s *Seq) []*Seq {
	for i, x := range q {
		if x == s {
			return append(q[:i], q[i+1:]...)
		}
	}
	return q
}

// Idle reports whether there is nothing to schedule.
func (e *Engine) Idle() bool { return len(e.running) == 0 && len(e.waiting) == 0 && len(e.late) == 0 }

// Stats returns the totals and the current gauges. Sequences that came
// too late for the planned step count as waiting.
func (e *Engine) Stats() Stats {
	s := e.stats
	s.Running, s.Waiting, s.KVUsage = len(e.running), len(e.waiting)+len(e.late), e.kv.usage()
	return s
}

// ResetPrefixCache forgets every cached block hash and reports true, or,
// as vLLM's KV cache manager does, refuses while running sequences hold
// blocks and reports false (vLLM still answers 200 and logs "Failed to
// reset prefix cache"). PreemptAll first makes it succeed.
func (e *Engine) ResetPrefixCache() bool {
	if len(e.running) > 0 {
		e.stats.PrefixCacheResetsRefused++
		return false
	}
	e.kv.reset()
	e.stats.PrefixCacheResets++
	return true
}

// PreemptAll preempts every running sequence (recompute), as vLLM does
// before a reset with reset_running_requests: they return to the front of
// the waiting queue in their order and free their blocks. It must not be
// called while a scheduled batch awaits Complete.
func (e *Engine) PreemptAll() {
	for len(e.running) > 0 {
		e.preempt(e.running[len(e.running)-1])
	}
}

// promoteLate moves the sequences that missed the planned step to the back
// of the waiting queue, for the next.
func (e *Engine) promoteLate() {
	e.waiting = append(e.waiting, e.late...)
	clear(e.late)
	e.late = e.late[:0]
}

// firstWaitingFits reports whether the next waiting prompt fits a step of
// its own whole, without its prefix-cache hits (which only help).
func (e *Engine) firstWaitingFits() bool {
	if len(e.waiting) == 0 || len(e.running) >= e.cfg.MaxNumSeqs {
		return false
	}
	s := e.waiting[0]
	return s.total()-s.computed <= e.cfg.MaxNumBatchedTokens && e.kv.blocksFor(s.total())-len(s.blocks) <= e.kv.numFree
}

func (e *Engine) admit(s *Seq, n int) {
	e.waiting = e.waiting[1:]
	e.running = append(e.running, s)
	if !s.scheduled {
		s.scheduled = true
		e.batch.Admitted = append(e.batch.Admitted, s)
	}
	e.plan(s, n)
}

func (e *Engine) plan(s *Seq, n int) {
	b := &e.batch
	b.Entries = append(b.Entries, BatchEntry{Seq: s, Tokens: n})
	b.Tokens += n
	b.ContextTokens += s.computed
}

func (e *Engine) preempt(s *Seq) {
	e.running = e.running[:len(e.running)-1]
	e.kv.release(s.blocks)
	s.blocks = s.blocks[:0]
	s.computed, s.registered = 0, 0
	s.preemptions++
	e.stats.Preemptions++
	e.waiting = append(e.waiting, nil)
	copy(e.waiting[1:], e.waiting)
	e.waiting[0] = s
}

// Complete applies the batch that Schedule returned: computed tokens enter
// the KV cache, full prompt blocks are published to the prefix cache, every
// sequence whose tokens are all computed samples one token, and sequences
// that reach their length finish and free their blocks. It returns the
// sequences that got a token in this step (valid until the next call).
func (e *Engine) Complete(b *Batch) []*Seq {
	e.emitted = e.emitted[:0]
	if len(b.Entries) == 0 {
		return e.emitted
	}
	e.stats.Steps++
	e.stats.ScheduledTokens += int64(b.Tokens)
	finished := false
	for _, en := range b.Entries {
		s := en.Seq
		if s.aborted {
			continue
		}
		s.computed += en.Tokens
		if e.cfg.PrefixCaching {
			full := min(s.computed, len(s.prompt)) / e.cfg.BlockSize
			for ; s.registered < full; s.registered++ {
				e.kv.register(s.blocks[s.registered], s.hashes[s.registered])
			}
		}
		if s.computed < s.total() {
			continue // a prefill chunk short of the end samples nothing
		}
		s.out++
		e.stats.GeneratedTokens++
		e.emitted = append(e.emitted, s)
		if s.out >= s.target {
			s.done = true
			finished = true
			e.stats.FinishedSeqs++
			e.kv.release(s.blocks)
			s.blocks = s.blocks[:0]
		}
	}
	if finished {
		kept := e.running[:0]
		for _, s := range e.running {
			if !s.done {
				kept = append(kept, s)
			}
		}
		clear(e.running[len(kept):])
		e.running = kept
	}
	return e.emitted
}

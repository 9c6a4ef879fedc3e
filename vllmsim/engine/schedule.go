package engine

// Schedule plans the next step as vLLM V1 does: running sequences first, in
// admission order, each taking what it still needs (one token for a decode,
// the rest of its prompt for a prefill) within the token budget; a sequence
// that cannot get blocks preempts the most recently admitted running
// sequence (recompute: its blocks are freed and it returns to the front of
// the waiting queue). Then, if nothing was preempted, waiting sequences are
// admitted in order while there are sequence slots, budget and blocks, each
// starting after its longest cached prefix. The returned Batch is reused by
// the next call; it is empty when there is nothing to run.
func (e *Engine) Schedule() *Batch {
	b := &e.batch
	b.Entries, b.Tokens, b.ContextTokens, b.Preempted, b.Duration = b.Entries[:0], 0, 0, 0, 0
	clear(b.Admitted)
	b.Admitted = b.Admitted[:0]
	if len(e.running) == 0 && len(e.waiting) == 0 {
		// Nothing was planned ahead: an idle engine core takes its input
		// and schedules it at once.
		e.promoteLate()
	}
	defer e.promoteLate()
	budget := e.cfg.MaxNumBatchedTokens
	if !e.cfg.PrefillFirst || !e.firstWaitingFits() {
		budget = e.scheduleRunning(budget)
	}
	if b.Preempted == 0 {
		e.admitWaiting(budget)
	}
	b.Duration = e.cfg.Profile.StepTime(b.Shape())
	return b
}

// scheduleRunning gives the running sequences, in admission order, what
// they still need within budget, preempting from the back for blocks; it
// returns the budget left.
func (e *Engine) scheduleRunning(budget int) int {
	b := &e.batch
	for i := 0; i < len(e.running) && budget > 0; i++ {
		s := e.running[i]
		n := min(s.total()-s.computed, budget)
		if n <= 0 {
			continue
		}
		need := e.kv.blocksFor(s.computed+n) - len(s.blocks)
		for need > e.kv.numFree {
			victim := e.running[len(e.running)-1]
			e.preempt(victim)
			b.Preempted++
			if victim == s {
				return budget // s preempted itself: nothing after it runs
			}
		}
		s.blocks, _ = e.kv.allocate(s.blocks, need)
		e.plan(s, n)
		budget -= n
	}
	return budget
}

// admitWaiting admits waiting sequences in order while there are
// sequence slots, budget and blocks.
func (e *Engine) admitWaiting(budget int) {
	for len(e.waiting) > 0 && len(e.running) < e.cfg.MaxNumSeqs && budget > 0 {
		s := e.waiting[0]
		admit := e.admitFrom
		if s.computed == 0 && e.cfg.PrefixCaching {
			admit = e.admitAfterCachedPrefix
		}
		n, ok := admit(s, budget)
		if !ok {
			return
		}
		budget -= n
	}
}

// admitAfterCachedPrefix admits s to start after its longest cached
// prefix, and returns the tokens it takes from budget; ok is false when it
// does not fit, and it stays first in the queue.
func (e *Engine) admitAfterCachedPrefix(s *Seq, budget int) (n int, ok bool) {
	// At least one token must be computed to sample from.
	hitBlocks := e.kv.lookup(s.hashes, (s.total()-1)/e.cfg.BlockSize)
	hit := hitBlocks * e.cfg.BlockSize
	if e.cfg.DisableChunkedPrefill && s.total()-hit > budget {
		return 0, false
	}
	n = min(s.total()-hit, budget)
	need := e.kv.blocksFor(hit+n) - hitBlocks
	if need > e.kv.numFree-e.kv.freeAmong(s.hashes, hitBlocks) {
		return 0, false
	}
	if s.preemptions > 0 {
		e.stats.PreemptedPrefixQueryTokens += int64(s.total())
		e.stats.PreemptedPrefixHitTokens += int64(hit)
	} else {
		e.stats.PrefixQueryTokens += int64(s.total())
		e.stats.PrefixHitTokens += int64(hit)
	}
	if !s.scheduled {
		s.cached = hit
	}
	s.blocks = e.kv.touch(s.blocks, s.hashes, hitBlocks)
	s.blocks, _ = e.kv.allocate(s.blocks, need)
	s.computed = hit
	s.registered = hitBlocks
	e.admit(s, n)
	return n, true
}

// admitFrom admits s to go on from what it has computed (no prefix
// caching, or a preempted sequence's kept progress), and returns the
// tokens it takes from budget; ok is false when it does not fit.
func (e *Engine) admitFrom(s *Seq, budget int) (n int, ok bool) {
	if e.cfg.DisableChunkedPrefill && s.total()-s.computed > budget {
		return 0, false
	}
	n = min(s.total()-s.computed, budget)
	need := e.kv.blocksFor(s.computed+n) - len(s.blocks)
	if need > e.kv.numFree {
		return 0, false
	}
	s.blocks, _ = e.kv.allocate(s.blocks, need)
	e.admit(s, n)
	return n, true
}

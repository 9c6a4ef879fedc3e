package drive

// ResetPrefixCache resets the prefix cache at once when nothing runs, or
// when preempt is false (the engine then refuses while sequences run, and
// counts it), and returns nil; otherwise it has the loop preempt the
// running sequences and reset between two steps, and returns a channel
// closed once it did.
func (l *Loop) ResetPrefixCache(preempt bool) <-chan struct{} {
	l.mu.Lock()
	if l.eng.Stats().Running == 0 || !preempt {
		l.eng.ResetPrefixCache()
		l.mu.Unlock()
		return nil
	}
	done := make(chan struct{})
	l.resets = append(l.resets, done)
	l.mu.Unlock()
	l.poke()
	return done
}

// applyResets preempts every running sequence and resets the prefix cache
// for the resets waiting, between two steps (l.mu held, no batch in
// flight), and releases their handlers.
func (l *Loop) applyResets() {
	if len(l.resets) == 0 {
		return
	}
	l.eng.PreemptAll()
	l.eng.ResetPrefixCache()
	for _, done := range l.resets {
		close(done)
	}
	l.resets = l.resets[:0]
}

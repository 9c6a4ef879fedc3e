package arrival

import "time"

// ABBA is the order in which two sides take turns over blocks blocks
// each: turn t holds the side ABBA(blocks)[t] (0 or 1), and block t/2 of
// that side. Pairs alternate which side goes first (A B, B A, A B, …), so
// that a drift steady over a pair of pairs reaches both sides alike: each
// side's mean turn is the other's when blocks is even, and half a turn
// apart at most when it is odd.
func ABBA(blocks int) []int {
	order := make([]int, 0, 2*max(blocks, 0))
	for k := range max(blocks, 0) {
		first := k % 2
		order = append(order, first, 1-first)
	}
	return order
}

// ABBABlocks cuts a window into the blocks each side of an ABBA
// alternation measures: the fewest of at most longest, made even in number
// so that each side goes first in as many pairs (and a drift that moves
// steadily over the window reaches both alike), each whole seconds, as
// equal as that allows, the longer first. Nil when the window cannot be
// cut so: it is not whole seconds, longest is under a second, or the
// window is too short for two blocks of a second.
func ABBABlocks(window, longest time.Duration) []time.Duration {
	secs, b := int(window/time.Second), int(longest/time.Second)
	if window%time.Second != 0 || b < 1 {
		return nil
	}
	n := (secs + b - 1) / b
	n += n % 2
	if n == 0 || secs/n < 1 {
		return nil
	}
	out := make([]time.Duration, n)
	for k := range out {
		out[k] = time.Duration(secs/n) * time.Second
		if k < secs%n {
			out[k] += time.Second
		}
	}
	return out
}

// ABBAWindow is the shortest window of at least d that ABBABlocks cuts
// into blocks of at most longest (d itself when longest is under a second
// and none is).
func ABBAWindow(d, longest time.Duration) time.Duration {
	w := max((d+time.Second-1)/time.Second*time.Second, 2*time.Second)
	if longest < time.Second {
		return d
	}
	for ABBABlocks(w, longest) == nil {
		w += time.Second // an odd window in blocks of a second
	}
	return w
}

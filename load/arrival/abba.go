package arrival

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

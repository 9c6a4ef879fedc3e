// Package nearest suggests the nearest known name to a misspelt one: the
// fixture names fixtures/formats opens and the SLO metrics load/verdict
// parses both answer a typo with "did you mean …?". It imports nothing of
// the project, so the lowest layer that needs it can.
package nearest

// Name returns the candidate fewest edits from s, if it is within maxEdits;
// of several as near, the first. A caller picks maxEdits so that only a near
// miss is suggested, never whichever name happens to be least far.
func Name[S ~string](s string, candidates []S, maxEdits int) (S, bool) {
	var best S
	found, bestDist := false, maxEdits+1
	for _, c := range candidates {
		if d := Distance(s, string(c)); d < bestDist {
			best, bestDist, found = c, d, true
		}
	}
	return best, found
}

// Distance is the Levenshtein distance between a and b, counted in runes so
// that a typed "us" is one edit from "µs".
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

package arrival

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestABBA(t *testing.T) {
	cases := []struct {
		blocks int
		want   []int
	}{
		{0, []int{}},
		{1, []int{0, 1}},
		{2, []int{0, 1, 1, 0}},
		{3, []int{0, 1, 1, 0, 0, 1}},
		{4, []int{0, 1, 1, 0, 0, 1, 1, 0}},
	}
	for _, c := range cases {
		got := ABBA(c.blocks)
		assert.Equal(t, c.want, got, "blocks=%d", c.blocks)
		// Each side gets every block once, in order.
		next := [2]int{}
		for turn, side := range got {
			assert.Equal(t, turn/2, next[side], "blocks=%d turn %d", c.blocks, turn)
			next[side]++
		}
		if c.blocks%2 == 0 && c.blocks > 0 {
			// A linear drift reaches both alike: equal mean turns.
			sum := [2]int{}
			for turn, side := range got {
				sum[side] += turn
			}
			assert.Equal(t, sum[0], sum[1], "blocks=%d", c.blocks)
		}
	}
}

// A window is cut into an even number of whole-second blocks of at most
// the longest, the longer first, so that each side goes first in as many
// pairs; ABBAWindow names the shortest window that can be cut.
func TestABBABlocksAreEvenInNumberAndWholeSeconds(t *testing.T) {
	s := time.Second
	cases := []struct {
		window, block, whole time.Duration
		want                 []time.Duration
	}{
		{30 * s, 10 * s, 30 * s, []time.Duration{8 * s, 8 * s, 7 * s, 7 * s}},
		{40 * s, 10 * s, 40 * s, []time.Duration{10 * s, 10 * s, 10 * s, 10 * s}},
		{20 * s, 5 * s, 20 * s, []time.Duration{5 * s, 5 * s, 5 * s, 5 * s}},
		{10 * s, 10 * s, 10 * s, []time.Duration{5 * s, 5 * s}},
		{31 * s, 10 * s, 31 * s, []time.Duration{8 * s, 8 * s, 8 * s, 7 * s}},
		{7 * s, 7 * s, 7 * s, []time.Duration{4 * s, 3 * s}},
		{5 * s, s, 6 * s, nil},
		{s, 10 * s, 2 * s, nil},
		{29*s + s/5, 10 * s, 30 * s, nil},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, ABBABlocks(c.window, c.block), "%v in blocks of at most %v", c.window, c.block)
		w := ABBAWindow(c.window, c.block)
		assert.Equal(t, c.whole, w, "%v in blocks of at most %v", c.window, c.block)
		assert.NotNil(t, ABBABlocks(w, c.block), "%v: what ABBAWindow names can be cut", w)
	}
}

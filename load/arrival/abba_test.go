package arrival

import (
	"testing"

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

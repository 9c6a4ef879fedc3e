package report

import (
	"time"

	"github.com/llmslo/llmslo/load/vllmapi"
)

// TrendBlocks is the number of blocks a step's window is cut into for the
// trend checks, on the client's side as on the server's.
const TrendBlocks = vllmapi.TrendBlocks

// TTFTBlock sums a block's requests, by intended send time: their prompt
// tokens (P) and TTFT in µs (Y), with the squares and cross products of a
// least-squares fit. The sums are integers, exact in any order, so a
// merged step's blocks are the single client's to the last digit.
type TTFTBlock struct {
	N   int64 `json:"n"`
	SP  int64 `json:"sum_prompt"`
	SY  int64 `json:"sum_ttft_us"`
	SPP int64 `json:"sum_prompt_sq"`
	SPY int64 `json:"sum_prompt_ttft"`
}

// Add records one request.
func (b *TTFTBlock) Add(prompt int64, ttft time.Duration) {
	y := ttft.Microseconds()
	b.N++
	b.SP += prompt
	b.SY += y
	b.SPP += prompt * prompt
	b.SPY += prompt * y
}

// Merge adds o's requests to b.
func (b *TTFTBlock) Merge(o TTFTBlock) {
	b.N += o.N
	b.SP += o.SP
	b.SY += o.SY
	b.SPP += o.SPP
	b.SPY += o.SPY
}

// MergeTTFTBlocks adds b's blocks into a's, block by block.
func MergeTTFTBlocks(a, b []TTFTBlock) []TTFTBlock {
	for len(a) < len(b) {
		a = append(a, TTFTBlock{})
	}
	for i := range b {
		a[i].Merge(b[i])
	}
	return a
}

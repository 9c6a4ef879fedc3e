package engine_test

import (
	"fmt"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

// The engine core runs in virtual time: the default profile's idle TTFT and
// TPOT for 1024 input and 256 output tokens (Llama 3.1 8B on an H100).
func ExampleEngine() {
	p, _ := engine.Profile("default")
	eng, _ := engine.New(engine.Config{MaxNumSeqs: 256, MaxNumBatchedTokens: 8192,
		BlockSize: 16, NumBlocks: 30000, PrefixCaching: true, Profile: p})
	seq := engine.NewSeq(1, make([]int32, 1024), 256)
	eng.Add(seq)
	var now, first time.Duration
	for !seq.Done() {
		b := eng.Schedule()
		now += b.Duration
		eng.Complete(b)
		if seq.Generated() == 1 && first == 0 {
			first = now
		}
	}
	fmt.Println("TTFT", first, "TPOT", ((now - first) / 255).Round(time.Microsecond))
	// Output: TTFT 26.840172ms TPOT 7.461ms
}

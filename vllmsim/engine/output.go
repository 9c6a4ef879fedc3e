package engine

import "time"

// Output is the API server's output path behind the engine, on a caller's
// clock: a step's outputs reach vLLM's API server process as one message
// (Overhead: receiving and decoding it), and there, on one event loop, each
// request's new token is detokenized, made into a chunk and written to its
// stream (PerSeq each), one request after another. A step's outputs wait
// for the previous step's to be written. Package vllmsim sets the costs
// (docs/simulator.md, "The first token").
type Output struct {
	Overhead time.Duration // a step's outputs
	PerSeq   time.Duration // a request's token in them
	free     time.Duration // when the API server is next free to take a step's outputs
}

// Zero reports whether the output path costs nothing.
func (o *Output) Zero() bool { return o.Overhead == 0 && o.PerSeq == 0 }

// Times appends to dst when each of a step's n outputs, ready at `at`,
// leaves the server, in the order the engine produced them.
func (o *Output) Times(dst []time.Duration, at time.Duration, n int) []time.Duration {
	if n == 0 {
		return dst
	}
	t := max(at, o.free) + o.Overhead
	for range n {
		t += o.PerSeq
		dst = append(dst, t)
	}
	o.free = t
	return dst
}

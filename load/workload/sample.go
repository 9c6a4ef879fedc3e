package workload

import (
	"math/rand/v2"

	"github.com/llmslo/llmslo/fixtures"
)

// Sampler draws row indexes reproducibly. Draws come in epochs of n: each
// epoch is a permutation of the rows seeded by (seed, epoch), so any n
// consecutive draws from an epoch start hold every row exactly once and the
// lengths sent follow the fixture closely even in short runs, while longer
// runs still vary the order. Index(i) depends on (seed, i) alone.
type Sampler struct {
	n     int
	seed  uint64
	epoch int
	perm  []int
}

// NewSampler draws from n rows (n ≥ 1).
func NewSampler(n int, seed int64) *Sampler {
	return &Sampler{n: max(n, 1), seed: uint64(seed), epoch: -1}
}

// Index is the row of draw i (i ≥ 0). Not safe for concurrent use.
func (s *Sampler) Index(i int) int {
	if i < 0 {
		i = -i
	}
	e := i / s.n
	if e != s.epoch {
		rng := rand.New(rand.NewPCG(mix(s.seed, uint64(e)), 0x6c6c6d736c6f))
		if s.perm == nil {
			s.perm = make([]int, s.n)
		}
		for k := range s.perm {
			s.perm[k] = k
		}
		rng.Shuffle(s.n, func(a, b int) { s.perm[a], s.perm[b] = s.perm[b], s.perm[a] })
		s.epoch = e
	}
	return s.perm[i%s.n]
}

// Shape is the length and prefix plan of one request before its prompt is
// synthesized.
type Shape struct {
	// Row is the fixture row the input length came from.
	Row    int
	Input  int
	Output int
	// Blocks are the prefix hash ids of the prompt, if the fixture has them.
	Blocks []uint64
}

// shaper turns draw indexes into shapes: joint rows when the fixture pairs
// lengths (never independent marginals then), independent draws otherwise.
type shaper struct {
	fx      *fixtures.Fixture
	inOrder bool
	joint   *Sampler
	inputs  *Sampler
	outputs *Sampler
}

func newShaper(fx *fixtures.Fixture, seed int64, inOrder bool) *shaper {
	s := &shaper{fx: fx, inOrder: inOrder}
	if fx.Provenance.Joint {
		s.joint = NewSampler(len(fx.Inputs), seed)
	} else {
		s.inputs = NewSampler(len(fx.Inputs), seed)
		s.outputs = NewSampler(len(fx.Outputs), int64(mix(uint64(seed), 0x6f7574)))
	}
	return s
}

func (s *shaper) shape(i int) Shape {
	var in, out int
	switch {
	case s.inOrder:
		in, out = i%len(s.fx.Inputs), i%len(s.fx.Outputs)
	case s.joint != nil:
		in = s.joint.Index(i)
		out = in
	default:
		in, out = s.inputs.Index(i), s.outputs.Index(i)
	}
	sh := Shape{Row: in, Input: s.fx.Inputs[in], Output: s.fx.Outputs[out]}
	if s.fx.Blocks != nil {
		sh.Blocks = s.fx.Blocks[in]
	}
	return sh
}

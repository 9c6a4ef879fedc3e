package vllmsim

import (
	"sort"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
	"github.com/llmslo/llmslo/vllmsim/tokenizer"
)

// vreq is one request of a virtual-time run.
type vreq struct {
	arrive      time.Duration // sent by the client
	ready       time.Duration // taken in by the API server: the engine gets it
	prompt      []int32
	out         int
	seq         *engine.Seq
	first, last time.Duration
	tokenTimes  []time.Duration
}

func (r *vreq) ttft() time.Duration { return r.first - r.arrive }

func (r *vreq) tpot() time.Duration {
	if r.out < 2 {
		return 0
	}
	return (r.last - r.first) / time.Duration(r.out-1)
}

// vrun drives an Engine in virtual time. Arrivals come from next, which is
// asked for the next request once the previous one has arrived and may
// return nil when there is none yet (closed loop) or no more. done is told
// of each finished request at its finish time.
type vrun struct {
	eng      *engine.Engine
	now      time.Duration
	pending  []*vreq // sorted by arrival
	front    engine.Frontend
	out      engine.Output   // the API server's output path
	times    []time.Duration // when the last step's outputs left
	inFront  []*vreq         // arrived, being taken in by the API server
	finished []*vreq
	onFinish func(r *vreq, at time.Duration)
	byID     map[uint64]*vreq
	nextID   uint64
	maxWait  int
	// waitingAt samples the waiting-queue length at each step.
	waitingAt []int
}

func newVRun(eng *engine.Engine) *vrun { return &vrun{eng: eng, byID: map[uint64]*vreq{}} }

func (v *vrun) add(r *vreq) {
	i := sort.Search(len(v.pending), func(i int) bool { return v.pending[i].arrive > r.arrive })
	v.pending = append(v.pending, nil)
	copy(v.pending[i+1:], v.pending[i:])
	v.pending[i] = r
}

// run steps the engine until until passes or nothing is left.
func (v *vrun) run(until time.Duration) {
	for v.now < until {
		for len(v.pending) > 0 && v.pending[0].arrive <= v.now {
			r := v.pending[0]
			v.pending = v.pending[1:]
			r.ready = v.front.Admit(r.arrive, len(r.prompt))
			v.inFront = append(v.inFront, r)
		}
		for len(v.inFront) > 0 && v.inFront[0].ready <= v.now {
			r := v.inFront[0]
			v.inFront = v.inFront[1:]
			r.seq = engine.NewSeq(v.nextID, r.prompt, r.out)
			v.byID[v.nextID] = r
			v.nextID++
			v.eng.Add(r.seq)
		}
		if len(v.inFront) > 0 && (v.front.HoldsEngine || v.eng.Idle()) {
			v.now = v.inFront[0].ready
			continue
		}
		if v.eng.Idle() {
			if len(v.pending) == 0 {
				return
			}
			v.now = v.pending[0].arrive
			continue
		}
		b := v.eng.Schedule()
		v.now += b.Duration
		st := v.eng.Stats()
		v.waitingAt = append(v.waitingAt, st.Waiting)
		v.maxWait = max(v.maxWait, st.Waiting)
		emitted := v.eng.Complete(b)
		v.times = v.out.Times(v.times[:0], v.now, len(emitted))
		for i, s := range emitted {
			r, at := v.byID[s.ID], v.times[i]
			if s.Generated() == 1 {
				r.first = at
			}
			r.last = at
			r.tokenTimes = append(r.tokenTimes, at)
			if s.Done() {
				delete(v.byID, s.ID)
				v.finished = append(v.finished, r)
				if v.onFinish != nil {
					v.onFinish(r, at)
				}
			}
		}
	}
}

// wordsPrompt is a prompt of n distinct token ids starting at base.
func wordsPrompt(base, n int) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(tokenizer.MinWordID + (base*7919+i)%(tokenizer.VocabSize-tokenizer.MinWordID))
	}
	return p
}

func defaultEngine(tb interface{ Fatal(...any) }, mod func(*engine.Config)) *engine.Engine {
	c := engine.Config{MaxNumSeqs: DefaultMaxNumSeqs, MaxNumBatchedTokens: DefaultMaxNumBatchedTokens,
		BlockSize: DefaultBlockSize, NumBlocks: DefaultNumGPUBlocks, PrefixCaching: true, Profile: h100Llama3_8B}
	if mod != nil {
		mod(&c)
	}
	e, err := engine.New(c)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// stepsWaiting counts steps that ended with requests waiting.
func (v *vrun) stepsWaiting() int {
	n := 0
	for _, w := range v.waitingAt {
		if w > 0 {
			n++
		}
	}
	return n
}

// h100Llama3_8B is the hand-fit profile of the default server.
var h100Llama3_8B = func() engine.StepProfile {
	p, err := engine.Profile(LegacyDefaultProfile)
	if err != nil {
		panic(err)
	}
	return p
}()

package engine

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// StepProfile is the step-time model: how long one engine step takes, as a
// function of the batch it runs. It is either a Roofline, the
// first-principles model of a model on a GPU that the simulator uses by
// default, or the linear model of the named profiles:
//
//	Fixed + SchedulerOverhead
//	  + PerToken        × tokens scheduled in the step (prefill chunks and one per decode)
//	  + PerSequence     × sequences in the step
//	  + PerContextToken × tokens already in the KV cache that the step's sequences read
//
// Fixed is the GPU work that does not depend on the batch (weights read once
// per step, kernel launches, the LM head at small batch); PerToken the
// compute-bound GEMM cost of each batched token; PerSequence sampling and
// bookkeeping per sequence; PerContextToken the attention read of the KV
// cache; SchedulerOverhead the engine's CPU time between steps, which real
// vLLM spends whether or not the GPU is busy.
type StepProfile struct {
	Name              string
	Fixed             time.Duration
	SchedulerOverhead time.Duration
	PerToken          time.Duration
	PerSequence       time.Duration
	PerContextToken   time.Duration

	// Roofline, when set, replaces the linear costs above.
	Roofline *Roofline
	// Scale multiplies every step time (--step-time-scale); 0 means 1.
	Scale float64
}

// StepTime is the modelled time of a step of shape s.
func (p StepProfile) StepTime(s StepShape) time.Duration {
	if s.Tokens == 0 && s.Seqs == 0 {
		return 0
	}
	var d time.Duration
	if p.Roofline != nil {
		d = p.Roofline.StepTime(s)
	} else {
		d = p.Fixed + p.SchedulerOverhead +
			time.Duration(s.Tokens)*p.PerToken +
			time.Duration(s.Seqs)*p.PerSequence +
			time.Duration(s.ContextTokens)*p.PerContextToken
	}
	if p.Scale != 0 && p.Scale != 1 {
		d = time.Duration(float64(d) * p.Scale)
	}
	return d
}

// Duration is the modelled time of a step that runs tokens batched tokens
// over seqs sequences reading contextTokens cached tokens: seqs−1 decodes
// and one prompt chunk of the remaining tokens, which samples, as in a step
// that finishes one prompt while others decode.
func (p StepProfile) Duration(tokens, seqs, contextTokens int) time.Duration {
	s := StepShape{Tokens: tokens, Seqs: seqs, Sampled: seqs, ContextTokens: contextTokens}
	if n := int64(tokens - seqs + 1); n > 1 {
		s.PrefillPairs = n * (n + 1) / 2
	}
	return p.StepTime(s)
}

// Shape is the batch as the step-time model sees it. Call it before
// Complete, while the sequences' cached counts are those the step reads.
func (b *Batch) Shape() StepShape {
	s := StepShape{Tokens: b.Tokens, Seqs: len(b.Entries), ContextTokens: b.ContextTokens}
	for _, en := range b.Entries {
		c, n := int64(en.Seq.computed), int64(en.Tokens)
		if en.Seq.computed+en.Tokens >= en.Seq.total() {
			s.Sampled++
		}
		if n > 1 {
			s.PrefillPairs += n*c + n*(n+1)/2
		}
	}
	return s
}

// The named profiles: linear models fitted by hand before the roofline
// model, kept so that runs made with them can be repeated (--profile NAME).
// They set the step time only; batch limits and the KV cache still follow
// --gpu and --model. How each was fitted, and to what, is in
// docs/simulator.md, "Named profiles". "instant" costs nothing: steps run
// back to back as fast as the host allows, for functional tests and for
// measuring the HTTP layer itself.
var profiles = map[string]StepProfile{
	"h100-llama3-8b": h100Llama3_8B,
	"h200-llama3-8b": scaleProfile("h200-llama3-8b", h100Llama3_8B, 0.835),
	"instant":        {Name: "instant"},
}

var h100Llama3_8B = StepProfile{
	Name:              "h100-llama3-8b",
	Fixed:             6900 * time.Microsecond,
	SchedulerOverhead: time.Millisecond,
	PerToken:          60 * time.Microsecond,
	PerSequence:       10 * time.Microsecond,
	PerContextToken:   40 * time.Nanosecond,
}

// DefaultProfile names the profile used when none is given: the roofline
// model of the served model on the simulated GPU.
const DefaultProfile = "default"

func scaleProfile(name string, p StepProfile, f float64) StepProfile {
	s := func(d time.Duration) time.Duration { return time.Duration(float64(d) * f) }
	return StepProfile{Name: name, Fixed: s(p.Fixed), SchedulerOverhead: s(p.SchedulerOverhead),
		PerToken: s(p.PerToken), PerSequence: s(p.PerSequence), PerContextToken: s(p.PerContextToken)}
}

// Profile returns the named step profile. "" and "default" name the
// roofline model of DefaultModel on DefaultGPU.
func Profile(name string) (StepProfile, error) {
	if name == "" || name == DefaultProfile {
		g, _ := LookupGPU(DefaultGPU)
		m, _ := LookupModel(DefaultModel)
		return RooflineProfile(g, m, 1, 2, CalibratedEfficiency)
	}
	p, ok := profiles[name]
	if !ok {
		return StepProfile{}, fmt.Errorf("vllmsim: unknown profile %q (known: %s)", name, strings.Join(ProfileNames(), ", "))
	}
	return p, nil
}

// RooflineProfile is the roofline model of m on tp GPUs g with efficiency
// eff (CalibratedEfficiency, or V0Efficiency for vLLM's V0 engine).
func RooflineProfile(g GPU, m ModelShape, tp int, kvBytes float64, eff Efficiency) (StepProfile, error) {
	r, err := NewRoofline(g, m, tp, kvBytes, eff)
	if err != nil {
		return StepProfile{}, err
	}
	return StepProfile{Name: fmt.Sprintf("roofline %s on %d×%s", m.Name, tp, g.Name), Roofline: r}, nil
}

// HandFit reports whether name is one of the hand-fit linear profiles.
func HandFit(name string) bool {
	_, ok := profiles[name]
	return ok
}

// ProfileNames lists the profile names --profile takes, sorted.
func ProfileNames() []string {
	names := []string{DefaultProfile}
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

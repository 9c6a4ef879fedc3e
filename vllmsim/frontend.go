package vllmsim

import (
	"fmt"
	"sync"
	"time"

	"github.com/llmslo/llmslo/vllmsim/engine"
)

// The API server's time before the engine sees a request: HTTP, request
// validation, tokenizing the prompt, handing it to the engine. A real
// server does this for one request at a time on its Python event loop, so
// the intake is a serial stage in front of the engine, shared by the
// real-time server and the virtual-time harness. See docs/simulator.md, "The
// API server".
const (
	// DefaultFrontendOverhead is vLLM V1's time a request, its API server
	// running apart from the engine core: 0.3 ms, near inference-sim's fit
	// for vLLM 0.8.4 serving Llama-3.1-8B on one H100 (0.23 ms a request).
	DefaultFrontendOverhead = 300 * time.Microsecond
	// V0FrontendOverhead is vLLM 0.6's (the V0 engine's) time a request,
	// measured on LambdaLabs' bursts on one H100: the engine's first prompt
	// step began 29 ms, 0.22 s and 0.77 s after 10, 80 and 320 prompts were
	// sent at once (their first tokens' times less that step's), 2.2–2.7 ms
	// a request once tokenizing is taken out.
	V0FrontendOverhead = 2400 * time.Microsecond
	// DefaultFrontendPerToken is the tokenizer's time a prompt token:
	// Hugging Face's fast (Rust) tokenizers encode English at about a
	// million tokens a second on one core (2.7 MiB/s for GPT-2's BPE, a
	// 4 MB document of 1M tokens in 1.1 s).
	DefaultFrontendPerToken = time.Microsecond
)

// resolveFrontend fills the API server's costs left unset: V1's (V0's with
// EngineV0) under the roofline, none under a named (linear) profile, whose
// hand fit to end-to-end figures already includes them.
func (c *Config) resolveFrontend() error {
	if c.FrontendOverhead < 0 || c.FrontendPerToken < 0 {
		return fmt.Errorf("vllmsim: --frontend-overhead and --frontend-per-token must not be negative, got %v and %v",
			c.FrontendOverhead, c.FrontendPerToken)
	}
	if c.NoFrontend {
		c.FrontendOverhead, c.FrontendPerToken = 0, 0
		return nil
	}
	if c.Profile.Roofline == nil {
		return nil
	}
	if c.FrontendOverhead == 0 {
		c.FrontendOverhead = DefaultFrontendOverhead
		if c.EngineV0 {
			c.FrontendOverhead = V0FrontendOverhead
		}
	}
	if c.FrontendPerToken == 0 {
		c.FrontendPerToken = DefaultFrontendPerToken
	}
	return nil
}

// describeFrontend is Describe's line on the API server.
func (c Config) describeFrontend() string {
	if c.FrontendOverhead == 0 && c.FrontendPerToken == 0 {
		return "API server time: none"
	}
	s := fmt.Sprintf("API server time: %v a request + %v a prompt token, one request at a time", c.FrontendOverhead, c.FrontendPerToken)
	if c.EngineV0 {
		s += "; V0 engine: no step while requests are taken in"
		if r := c.Profile.Roofline; r != nil {
			s += fmt.Sprintf(", %v of CPU a sequence a step", r.Eff.SeqCPU)
		}
		s += ", prompts before decodes without chunked prefill"
	}
	return s
}

func newFrontend(c Config) engine.Frontend {
	return engine.Frontend{Overhead: c.FrontendOverhead, PerToken: c.FrontendPerToken, HoldsEngine: c.EngineV0}
}

// intake is the real-time server's frontend.
type intake struct {
	mu     sync.Mutex
	f      engine.Frontend
	epoch  time.Time
	inside int // requests taken in, not yet handed to the engine or given up
}

// newIntake returns nil when the front end costs nothing.
func newIntake(c Config) *intake {
	f := newFrontend(c)
	if f.Zero() {
		return nil
	}
	return &intake{f: f, epoch: time.Now()}
}

// enter queues a request that arrived at arrival and returns when it
// reaches the engine; the caller then hands it over (loop.submit) or gives
// up (loop.giveUp).
func (in *intake) enter(arrival time.Time, promptTokens int) time.Time {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.inside++
	return in.epoch.Add(in.f.Admit(arrival.Sub(in.epoch), promptTokens))
}

func (in *intake) leave() {
	in.mu.Lock()
	in.inside--
	in.mu.Unlock()
}

// holding reports whether the engine must wait for the intake.
func (in *intake) holding() bool {
	if in == nil || !in.f.HoldsEngine {
		return false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.inside > 0
}

package vllmsim

import (
	"fmt"
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
	// DefaultOutputOverhead is the API server's time to take in one
	// step's outputs from the engine core (a ZeroMQ message, msgpack
	// decoding, waking the output handler): the request intake's cost in
	// the other direction, an estimate.
	DefaultOutputOverhead = 300 * time.Microsecond
	// DefaultOutputPerSeq is its time for one request's token: incremental
	// detokenizing, the chunk's JSON, the write to the stream. An
	// estimate, of the order of inference-sim's trained per-output-token
	// host cost (45.9 µs).
	DefaultOutputPerSeq = 20 * time.Microsecond
)

// resolveFrontend fills the API server's costs left unset: V1's (V0's with
// EngineV0) under the roofline, none under a named (linear) profile, whose
// hand fit to end-to-end figures already includes them.
func (c *Config) resolveFrontend() error {
	if c.FrontendOverhead < 0 || c.FrontendPerToken < 0 {
		return fmt.Errorf("vllmsim: --frontend-overhead and --frontend-per-token must not be negative, got %v and %v",
			c.FrontendOverhead, c.FrontendPerToken)
	}
	if c.OutputOverhead < 0 || c.OutputPerSeq < 0 {
		return fmt.Errorf("vllmsim: --output-overhead and --output-per-seq must not be negative, got %v and %v",
			c.OutputOverhead, c.OutputPerSeq)
	}
	switch {
	case c.AsyncScheduling && c.NoAsyncScheduling:
		return fmt.Errorf("vllmsim: --async-scheduling and --no-async-scheduling both given")
	case c.AsyncScheduling && c.EngineV0:
		return fmt.Errorf("vllmsim: --async-scheduling is a V1 engine feature; --engine-v0 has none")
	case !c.NoAsyncScheduling && !c.EngineV0 && c.Profile.Roofline != nil:
		c.AsyncScheduling = true
	}
	if c.NoFrontend {
		c.FrontendOverhead, c.FrontendPerToken, c.OutputOverhead, c.OutputPerSeq = 0, 0, 0, 0
		return nil
	}
	if c.Profile.Roofline == nil {
		return nil
	}
	if !c.EngineV0 {
		// V0 processed outputs in its engine loop, a cost its SeqCPU fit
		// holds.
		if c.OutputOverhead == 0 {
			c.OutputOverhead = DefaultOutputOverhead
		}
		if c.OutputPerSeq == 0 {
			c.OutputPerSeq = DefaultOutputPerSeq
		}
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
	if c.FrontendOverhead == 0 && c.FrontendPerToken == 0 && c.OutputOverhead == 0 && c.OutputPerSeq == 0 {
		return "API server time: none" + c.describeAsync()
	}
	s := fmt.Sprintf("API server time: %v a request + %v a prompt token, one request at a time", c.FrontendOverhead, c.FrontendPerToken)
	if c.OutputOverhead != 0 || c.OutputPerSeq != 0 {
		s += fmt.Sprintf("; outputs %v a step + %v a request", c.OutputOverhead, c.OutputPerSeq)
	}
	s += c.describeAsync()
	if c.EngineV0 {
		s += "; V0 engine: no step while requests are taken in"
		if r := c.Profile.Roofline; r != nil {
			s += fmt.Sprintf(", %v of CPU a sequence a step", r.Eff.SeqCPU)
		}
		s += ", prompts before decodes without chunked prefill"
	}
	return s
}

func (c Config) describeAsync() string {
	if c.AsyncScheduling {
		return "; async scheduling"
	}
	return ""
}

func newOutput(c Config) engine.Output {
	return engine.Output{Overhead: c.OutputOverhead, PerSeq: c.OutputPerSeq}
}

func newFrontend(c Config) engine.Frontend {
	return engine.Frontend{Overhead: c.FrontendOverhead, PerToken: c.FrontendPerToken, HoldsEngine: c.EngineV0}
}

// The flags of the first token's path, registered beside the costs they
// set.
func init() {
	serveFlags["async-scheduling"] = serveFlag{boolean: true, set: func(c *Config, _ string) error { c.AsyncScheduling = true; return nil }}
	serveFlags["no-async-scheduling"] = serveFlag{boolean: true, set: func(c *Config, _ string) error { c.NoAsyncScheduling = true; return nil }}
	serveFlags["output-overhead"] = durationFlag(func(c *Config) *time.Duration { return &c.OutputOverhead })
	serveFlags["output-per-seq"] = durationFlag(func(c *Config) *time.Duration { return &c.OutputPerSeq })
}

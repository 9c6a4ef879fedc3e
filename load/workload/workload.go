package workload

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"time"

	"github.com/llmslo/llmslo/fixtures"
)

// Options configure New. The zero value is a salted,
// seed-0 workload on the completions API with token-id prompts.
type Options struct {
	// Seed fixes which fixture rows are drawn and the prompts' own tokens.
	Seed int64
	// Salt is mixed into every prompt so that nothing is served from a
	// previous run's prefix cache. Empty: a random salt per workload (the
	// default). DisableSalt: a fixed salt, so re-runs send identical prompts.
	Salt        string
	DisableSalt bool
	// API chooses token-id prompts (completions, the default) or text
	// prompts as one user message (chat).
	API API
	// TextPrompts sends completions prompts as text, sized as chat
	// prompts are: for servers that reject token-id prompts.
	TextPrompts bool
	// VocabMin and VocabMax bound token ids to [VocabMin, VocabMax);
	// defaults DefaultVocabMin and DefaultVocabMax.
	VocabMin, VocabMax int
	// MaxModelLen, when > 1, clips every request to input+output ≤ MaxModelLen.
	MaxModelLen int
	// InOrder sends the fixture's rows in order (request i is row i mod n),
	// as a trace replay pairs request i with arrival offset i.
	InOrder bool
	// Tokenizer, when set, makes chat prompts exact by measurement.
	// Text is the token model calibration starts from (and all there is
	// without a Tokenizer); left zero with a Tokenizer, it is fitted once
	// from two probe texts. CalibrationTries bounds measurements per prompt
	// (default 8); TokenizeTimeout bounds each (default 10s).
	Tokenizer        Tokenizer
	Text             TextModel
	CalibrationTries int
	TokenizeTimeout  time.Duration
}

// Workload turns a fixture into load.Requests: request i is a deterministic
// draw for the seed, with a prompt synthesized to its exact length.
type Generator struct {
	fx     *fixtures.Fixture
	opts   Options
	salt   string
	tokens TokenSynth
	text   TextSynth

	mu     sync.Mutex
	model  *TextModel // the calibration start, once known
	shapes *shaper
	cal    map[int]calibration
	stats  CalibrationStats
}

// CalibrationStats says how exact the text prompts were.
type CalibrationStats struct {
	Prompts        int    `json:"prompts"`         // text prompts built
	Measured       int    `json:"measured"`        // of which measured by the tokenizer
	Exact          int    `json:"exact"`           // of which measured exact
	MaxResidual    int    `json:"max_residual"`    // largest |measured − asked| tokens
	TokenizerCalls int    `json:"tokenizer_calls"` //
	Errors         int    `json:"errors"`          // tokenizer failures (prompt left at the model's estimate)
	LastError      string `json:"last_error,omitempty"`
}

// add counts one text prompt's calibration; the caller holds the
// generator's lock. c.err can only be a tokenizer's: calibrating without
// one never fails.
func (st *CalibrationStats) add(c calibration) {
	st.Prompts++
	st.TokenizerCalls += c.calls
	if c.measured {
		st.Measured++
		if c.residual == 0 {
			st.Exact++
		}
		st.MaxResidual = max(st.MaxResidual, abs(c.residual))
	}
	if c.err != nil {
		st.Errors++
		st.LastError = c.err.Error()
	}
}

// New prepares a workload over fx.
func New(fx *fixtures.Fixture, opts Options) (*Generator, error) {
	if fx == nil {
		return nil, fmt.Errorf("fixtures: nil fixture")
	}
	if err := fx.Validate(); err != nil {
		return nil, fmt.Errorf("fixture %s: %w", fx.Name, err)
	}
	if opts.API == "" {
		opts.API = APICompletions
	}
	if opts.API != APICompletions && opts.API != APIChat {
		return nil, fmt.Errorf("fixtures: unknown API %q", opts.API)
	}
	if opts.VocabMin == 0 && opts.VocabMax == 0 {
		opts.VocabMin, opts.VocabMax = DefaultVocabMin, DefaultVocabMax
	}
	if opts.VocabMin < 0 || opts.VocabMax <= opts.VocabMin {
		return nil, fmt.Errorf("fixtures: vocabulary range [%d, %d) is empty", opts.VocabMin, opts.VocabMax)
	}
	if opts.CalibrationTries <= 0 {
		opts.CalibrationTries = 8
	}
	if opts.TokenizeTimeout <= 0 {
		opts.TokenizeTimeout = 10 * time.Second
	}
	if opts.MaxModelLen > 1 {
		fx = fx.Clip(opts.MaxModelLen)
	}
	salt := opts.Salt
	switch {
	case opts.DisableSalt:
		salt = ""
	case salt == "":
		var b [8]byte
		if _, err := crand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("fixtures: salt: %w", err)
		}
		salt = strconv.FormatUint(binary.LittleEndian.Uint64(b[:]), 16)
	}
	h := fnv.New64a()
	h.Write([]byte("llmslo-salt:" + salt))
	saltHash := h.Sum64()
	bs := max(fx.BlockSize, 1)
	return &Generator{
		fx:     fx,
		opts:   opts,
		salt:   salt,
		tokens: TokenSynth{Salt: saltHash, Seed: opts.Seed, VocabMin: opts.VocabMin, VocabMax: opts.VocabMax, BlockSize: bs},
		text:   TextSynth{Salt: saltHash, Seed: opts.Seed, BlockSize: bs},
		shapes: newShaper(fx, opts.Seed, opts.InOrder),
		cal:    map[int]calibration{},
	}, nil
}

// Fixture is the fixture the workload draws from (clipped, if asked).
func (g *Generator) Fixture() *fixtures.Fixture { return g.fx }

// Info summarizes the fixture for a report.
func (g *Generator) Info() fixtures.Info { return g.fx.Info() }

// Salt is the run's salt ("" when disabled): record it to reproduce a run.
func (g *Generator) Salt() string { return g.salt }

// Shape is the lengths and blocks of request i.
func (g *Generator) Shape(i int) Shape {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.shapes.shape(i)
}

// Request builds request i; it implements Workload. On the chat API
// with a Tokenizer the first call for i measures the prompt over HTTP, so
// call Prepare before a timed run.
func (g *Generator) Request(i int) Request {
	return g.request(context.Background(), i)
}

// Prepare builds requests [0, n) ahead of time, doing any tokenizer
// measurement now rather than while a schedule runs.
func (g *Generator) Prepare(ctx context.Context, n int) error { return g.PrepareRange(ctx, 0, n) }

// PrepareRange builds requests [from, to) ahead of time, as Prepare does.
func (g *Generator) PrepareRange(ctx context.Context, from, to int) error {
	for i := from; i < to; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		g.request(ctx, i)
	}
	return nil
}

// Calibration reports how exact the text prompts built so far are.
func (g *Generator) Calibration() CalibrationStats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stats
}

func (g *Generator) request(ctx context.Context, i int) Request {
	sh := g.Shape(i)
	req := Request{Index: i, InputTokens: sh.Input, OutputTokens: sh.Output}
	if g.opts.API == APICompletions && !g.opts.TextPrompts {
		req.PromptIDs = g.tokens.IDs(i, sh)
		return req
	}
	c := g.calibrated(ctx, i, sh)
	req.Prompt = g.text.Prompt(i, sh, c.words, c.pad)
	return req
}

// calibrated is the text size of request i, measured once.
func (g *Generator) calibrated(ctx context.Context, i int, sh Shape) calibration {
	g.mu.Lock()
	c, ok := g.cal[i]
	g.mu.Unlock()
	if ok {
		return c
	}
	var tok Tokenizer
	if t := g.opts.Tokenizer; t != nil {
		tok = TokenizerFunc(func(ctx context.Context, text string) (int, error) {
			ctx, cancel := context.WithTimeout(ctx, g.opts.TokenizeTimeout)
			defer cancel()
			return t.CountTokens(ctx, text)
		})
	}
	c = calibrate(ctx, tok, g.textModel(ctx, tok), sh.Input, g.opts.CalibrationTries, func(n, pad int) string {
		return g.text.Prompt(i, sh, n, pad)
	})
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.opts.Tokenizer != nil && c.err == nil {
		// Only measured results are kept: a failed measurement is retried
		// the next time the request is built.
		g.cal[i] = c
	}
	g.stats.add(c)
	return c
}

// probeWords are the sizes of the two texts a tokenizer's model is fitted
// from: long enough to average over the word list, short enough to be cheap.
var probeWords = [2]int{64, 512}

// textModel is where calibration starts: the configured model, or, with a
// tokenizer and no model configured, a line through two measured probe
// texts (template overhead and tokens per word), fitted once. A better start
// saves measurements; the result does not depend on it when it is exact.
func (g *Generator) textModel(ctx context.Context, tok Tokenizer) TextModel {
	if tok == nil || g.opts.Text != (TextModel{}) {
		return g.opts.Text
	}
	g.mu.Lock()
	m := g.model
	g.mu.Unlock()
	if m != nil {
		return *m
	}
	var counts [2]int
	for k, n := range probeWords {
		c, err := tok.CountTokens(ctx, g.text.Words(-1, Shape{}, n))
		if err != nil {
			return g.opts.Text // measured again next time
		}
		counts[k] = c
	}
	fit, err := FitTextModel(probeWords[:], counts[:])
	if err != nil || !(fit.TokensPerWord > 0) {
		fit = TextModel{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.model = &fit
	g.stats.TokenizerCalls += len(probeWords)
	return fit
}

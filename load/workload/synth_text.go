package workload

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// Tokenizer counts the prompt tokens a text costs on the target, chat
// template included.
type Tokenizer interface {
	CountTokens(ctx context.Context, text string) (int, error)
}

// TokenizerFunc adapts a function to Tokenizer.
type TokenizerFunc func(ctx context.Context, text string) (int, error)

// CountTokens calls f.
func (f TokenizerFunc) CountTokens(ctx context.Context, text string) (int, error) {
	return f(ctx, text)
}

// words are common English words that most tokenizers keep whole, so text
// prompts cost about one token per word before calibration.
var words = uniqueFields(`the of and to in is was for on that with as by at from
his her it an be are or which this had not but were have they one all their has
been more its who also two new first other after when into time can there
only most three some many over out up years may would used then these during
such year under between while about known city part where later both well
through school four since them so united national state world war same day
system life small work early each high long end north south east west old
second name game team make five back film group set area city home music
book made family place best early house great near what how than team take
way good will any like under last side water form point head story must run
land party river field road power line left right open close show study
group love body light sound voice paper river market town value order
plan game stone green black white blue red gold silver money price cost
word text code data rate test case note list table chart model space time
hand face door room wall floor roof tree leaf root seed rain snow wind fire
earth star moon sun sky sea lake hill rock sand salt milk bread meat fish
bird dog cat horse cow sheep king queen lord lady child man woman friend`)

func uniqueFields(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range strings.Fields(s) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// TextSynth builds word prompts: space-separated words drawn from a fixed
// list, with prefix blocks reproduced word for word.
type TextSynth struct {
	Salt      uint64
	Seed      int64
	BlockSize int
}

// Words returns the first n words of request i's text. Block j contributes
// BlockSize words from (Salt, Blocks[j]); the rest come from (Salt, Seed, i),
// whose first words act as a per-request nonce. Fewer words only cut the
// end, so a calibrated prompt keeps its shared prefix.
func (t TextSynth) Words(i int, sh Shape, n int) string {
	var b strings.Builder
	count := 0
	put := func(s *stream) {
		if count > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[s.below(len(words))])
		count++
	}
	for _, h := range sh.Blocks {
		s := blockStream(t.Salt, h)
		for k := 0; k < t.BlockSize && count < n; k++ {
			put(&s)
		}
	}
	s := requestStream(t.Salt, t.Seed, i)
	for count < n {
		put(&s)
	}
	return b.String()
}

// TextModel predicts the prompt tokens of a text of w words as
// TokensPerWord·w + Overhead: the starting point of calibration, and the
// whole of it when no tokenizer is available.
type TextModel struct {
	TokensPerWord float64 // default 1
	Overhead      float64 // chat template tokens; default 0
}

// WordsFor is the word count the model expects to cost target tokens (≥ 1).
func (m TextModel) WordsFor(target int) int {
	tpw := m.TokensPerWord
	if !(tpw > 0) {
		tpw = 1
	}
	return max(1, int(math.Round((float64(target)-m.Overhead)/tpw)))
}

// FitTextModel fits a TextModel by least squares to observed (words,
// prompt_tokens) pairs, such as usage.prompt_tokens from earlier requests.
func FitTextModel(wordCounts, promptTokens []int) (TextModel, error) {
	n := len(wordCounts)
	if n == 0 || n != len(promptTokens) {
		return TextModel{}, fmt.Errorf("need equal, non-empty samples; got %d word counts and %d token counts", n, len(promptTokens))
	}
	var sx, sy, sxx, sxy float64
	for k := range n {
		x, y := float64(wordCounts[k]), float64(promptTokens[k])
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	den := float64(n)*sxx - sx*sx
	if den == 0 {
		if sx == 0 {
			return TextModel{}, fmt.Errorf("all word counts are zero")
		}
		return TextModel{TokensPerWord: sy / sx}, nil
	}
	slope := (float64(n)*sxy - sx*sy) / den
	return TextModel{TokensPerWord: slope, Overhead: (sy - slope*sx) / float64(n)}, nil
}

// padWord is appended to close the last gap when no word count hits the
// target (a word that costs two tokens jumps over it): a single-letter word
// costs one token in the common tokenizers, and in the simulator.
const padWord = "a"

// Prompt is the text of request i: its first w words, then pad padWords.
func (t TextSynth) Prompt(i int, sh Shape, w, pad int) string {
	s := t.Words(i, sh, w)
	if pad > 0 {
		s += strings.Repeat(" "+padWord, pad)
	}
	return s
}

// calibration is the outcome of fitting one prompt to its target.
type calibration struct {
	words, pad int
	residual   int // measured tokens − target; 0 when exact
	measured   bool
	calls      int
	err        error
}

// calibrate searches the text whose tokens are exactly target: measure,
// move the word count by the difference over the tokens-per-word slope (a
// secant, re-estimated from the last two measurements), and once two
// adjacent word counts straddle the target, pad the shorter one with
// one-token words. It stops after tries measurements and keeps the closest
// text found.
func calibrate(ctx context.Context, tok Tokenizer, model TextModel, target, tries int, text func(w, pad int) string) calibration {
	w, pad := model.WordsFor(target), 0
	if tok == nil {
		return calibration{words: w}
	}
	tpw := model.TokensPerWord
	if !(tpw > 0) {
		tpw = 1
	}
	type probe struct{ w, diff int }
	var below, above *probe
	best := calibration{words: w}
	prevW, prevC := -1, 0
	for range max(tries, 1) {
		c, err := tok.CountTokens(ctx, text(w, pad))
		best.calls++
		if err != nil {
			best.err = err
			return best
		}
		diff := c - target
		if !best.measured || abs(diff) < abs(best.residual) || (diff == 0 && best.residual != 0) {
			best.words, best.pad, best.residual, best.measured = w, pad, diff, true
		}
		if diff == 0 {
			break
		}
		if pad > 0 {
			if pad-diff < 0 {
				break
			}
			pad -= diff
			continue
		}
		if diff < 0 && (below == nil || w > below.w) {
			below = &probe{w, diff}
		}
		if diff > 0 && (above == nil || w < above.w) {
			above = &probe{w, diff}
		}
		if below != nil && above != nil && above.w-below.w <= 1 {
			w, pad = below.w, -below.diff
			continue
		}
		if prevW >= 0 && w != prevW && c != prevC {
			tpw = math.Min(8, math.Max(0.25, float64(c-prevC)/float64(w-prevW)))
		}
		prevW, prevC = w, c
		step := int(math.Round(float64(-diff) / tpw))
		if step == 0 {
			step = -sign(diff)
		}
		next := w + step
		if below != nil {
			next = max(next, below.w+1)
		}
		if above != nil {
			next = min(next, above.w-1)
		}
		if next < 1 {
			if w == 1 {
				break // even one word costs too much: the template alone exceeds the target
			}
			next = 1
		}
		w = next
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

package load

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/workload"
)

// serverFeatures is what a short probe before the first step found of a
// server llmslo did not start (a URL target): whether it takes token-id
// prompts, has vLLM's /tokenize, and, when it has not, how many tokens its
// tokenizer makes of llmslo's text, from the usage.prompt_tokens it
// reports; and whether it honours ignore_eos. The simulator and the vLLM
// container have all of vLLM's extras and are not probed.
type serverFeatures struct {
	// TextPrompts: the server rejected token-id prompts on the
	// completions API (rejected holds its message), so prompts go as text.
	TextPrompts bool
	rejected    string
	// Tokenize: POST /tokenize answered, so chat prompts are made exact
	// one by one, as on vLLM.
	Tokenize bool
	// Sized: without /tokenize, text prompts are sized by Text, a line
	// fitted to the prompt tokens the server reported for probe texts.
	Sized bool
	Text  workload.TextModel
	// unsized says why text prompts could not be sized (the server
	// failed the probes): they are then estimates at a token a word.
	unsized string
	// EndsEarly: asked for eosProbeTokens with ignore_eos and min_tokens,
	// the server reported fewer (eosGot): it stops at EOS whatever
	// ignore_eos says. A probe that failed or reported no usage tells
	// nothing, and the steps hold the server to the lengths.
	EndsEarly bool
	eosGot    int
}

// sizedTolerance is how far off a prompt sized from the fitted model (not
// measured one by one) may come back before it counts as a mismatch.
const sizedTolerance = 0.05

// probeWordCounts are the probe texts' sizes: short enough for a small
// context, spread enough to fit a slope and the template's overhead.
var probeWordCounts = []int{16, 64, 256}

// probeFeatures probes a URL target before the first step: a handful of
// requests of one output token each, none of them measured. A server that
// fails the probes (5xx, a broken connection) is left to the step to
// measure; only one that refuses every kind of prompt stops the run.
func probeFeatures(ctx context.Context, ep *Endpoint, hc *http.Client, api workload.API) (*serverFeatures, error) {
	if ep.Kind != KindURL {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	f := &serverFeatures{Tokenize: client.HasTokenize(ctx, hc, ep.URL, ep.Model)}
	if api == workload.APICompletions {
		ids := []int{workload.DefaultVocabMin, workload.DefaultVocabMin + 1, workload.DefaultVocabMin + 2}
		status, msg, _, err := client.Probe(ctx, hc, ep.URL, ep.Model, ep.APIKey, api, ids, 1)
		if err == nil && status/100 == 4 {
			f.TextPrompts, f.rejected = true, msg
		}
	}
	exact := api == workload.APICompletions && !f.TextPrompts || api == workload.APIChat && f.Tokenize
	if !exact { // prompts are exact as token ids, or as chat text measured by /tokenize
		if err := f.size(ctx, ep, hc, api); err != nil {
			return nil, err
		}
	}
	f.probeEOS(ctx, ep, hc, api)
	return f, nil
}

// eosProbeTokens is the output the ignore_eos probe asks for: enough for
// a model to reach its end of text on a plain prompt, cheap on any server.
const eosProbeTokens = 16

// probeEOS asks for eosProbeTokens of output with ignore_eos and
// min_tokens, as every request of the load does, and notes a server that
// gave fewer.
func (f *serverFeatures) probeEOS(ctx context.Context, ep *Endpoint, hc *http.Client, api workload.API) {
	var prompt any = []int{workload.DefaultVocabMin, workload.DefaultVocabMin + 1, workload.DefaultVocabMin + 2}
	if api == workload.APIChat || f.TextPrompts {
		prompt = "Write one short sentence, then stop."
	}
	status, _, usage, err := client.Probe(ctx, hc, ep.URL, ep.Model, ep.APIKey, api, prompt, eosProbeTokens)
	if err != nil || status/100 != 2 || usage.CompletionTokens <= 0 {
		return
	}
	f.EndsEarly, f.eosGot = usage.CompletionTokens < eosProbeTokens, usage.CompletionTokens
}

// checkLengths refuses, before the load, a server the probe saw stop early
// despite ignore_eos, unless its lengths were declared advisory: every
// step would run a lighter workload than asked.
func (f *serverFeatures) checkLengths(advisory bool) error {
	if f == nil || !f.EndsEarly || advisory {
		return nil
	}
	return fmt.Errorf("the server does not honour ignore_eos: asked for %d output tokens with ignore_eos and min_tokens, it gave %d, so its outputs would end early and the load would be lighter than asked; "+
		"if it cannot be made to honour them, declare it with --lengths-advisory (slotest.WithLengthsAdvisory, load.Plan.LengthsAdvisory) to judge the outputs it gives", eosProbeTokens, f.eosGot)
}

// size fits the text model from the prompt tokens the server reports for
// probe texts of a few sizes.
func (f *serverFeatures) size(ctx context.Context, ep *Endpoint, hc *http.Client, api workload.API) error {
	path := "/v1/completions"
	if api == workload.APIChat {
		path = "/v1/chat/completions"
	}
	tokens := make([]int, len(probeWordCounts))
	for k, n := range probeWordCounts {
		text := workload.TextSynth{Salt: uint64(k + 1)}.Words(-1, workload.Shape{}, n)
		status, msg, u, err := client.Probe(ctx, hc, ep.URL, ep.Model, ep.APIKey, api, text, 1)
		usage := u.PromptTokens
		switch {
		case err == nil && status/100 == 4 && f.TextPrompts:
			return fmt.Errorf("the server rejects both token-id and text prompts on POST %s (status %d: %s; token ids: %s): check the model name, or use the chat API (--api chat, slotest.WithAPI)",
				path, status, msg, f.rejected)
		case err != nil:
			f.unsized = fmt.Sprintf("probe POST %s: %v", path, client.WithoutURL(err))
		case status/100 != 2:
			f.unsized = fmt.Sprintf("probe POST %s: status %d: %s", path, status, msg)
		case usage <= 0:
			f.unsized = "it reports no usage.prompt_tokens"
		}
		if f.unsized != "" {
			return nil
		}
		tokens[k] = usage
	}
	m, err := workload.FitTextModel(probeWordCounts, tokens)
	if err != nil || !(m.TokensPerWord > 0) {
		f.unsized = fmt.Sprintf("%v words cost %v prompt tokens, no usable line", probeWordCounts, tokens)
		return nil
	}
	f.Sized, f.Text = true, m
	return nil
}

// workloadOptions sets how the workload builds prompts for the server.
func (f *serverFeatures) workloadOptions(o *workload.Options) {
	if f == nil {
		return
	}
	o.TextPrompts = f.TextPrompts
	if !f.Tokenize || f.Sized {
		o.Tokenizer = nil // sized from usage: measuring each prompt would fail, or measure the wrong thing
	}
	if f.Sized {
		o.Text = f.Text
	}
}

// lengthCheck is when a request's lengths count as a mismatch: an output
// that ended early is allowed only on a server whose lengths were declared
// advisory (Plan.LengthsAdvisory), never guessed from what it lacks.
func (f *serverFeatures) lengthCheck(tolerance float64, advisory bool) observe.LengthCheck {
	c := observe.LengthCheck{Tolerance: tolerance, EarlyEndAllowed: advisory}
	if f != nil && f.Sized {
		c.InputTolerance = sizedTolerance
	}
	return c
}

// notes say, once for the run, what the probe changed and what cannot be
// held on this server: its output lengths, when declared advisory.
func (f *serverFeatures) notes(advisory bool) []string {
	var out []string
	if advisory {
		n := "the server's output lengths were declared advisory (it stops at EOS whatever ignore_eos says): its outputs are judged as given, a short one counted (length_ended_early), not taken as a mismatch, and a step whose outputs came back short says the workload was lighter than asked"
		if f != nil && f.EndsEarly {
			n += fmt.Sprintf("; the probe saw it give %d of %d output tokens asked with ignore_eos", f.eosGot, eosProbeTokens)
		}
		out = append(out, n)
	}
	if f == nil {
		return out
	}
	if f.TextPrompts {
		out = append(out, "the server rejects token-id prompts ("+f.rejected+"): prompts were sent as text")
	}
	if f.Sized {
		out = append(out, fmt.Sprintf("the server has no /tokenize: prompts were sized from the usage.prompt_tokens it reported for %d probe texts (%.2f tokens a word, %.0f more for the template), so their lengths come close, not exact; a prompt counts as a length mismatch beyond %.0f%%",
			len(probeWordCounts), f.Text.TokensPerWord, f.Text.Overhead, 100*sizedTolerance))
	}
	if f.unsized != "" {
		out = append(out, "the server has no /tokenize and its prompt tokens could not be measured ("+f.unsized+"): prompt lengths are estimates at a token a word")
	}
	return out
}

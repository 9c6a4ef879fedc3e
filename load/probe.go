package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/workload"
)

// serverFeatures is what a short probe before the first step found of a
// server llmslo did not start (a URL target): whether it takes token-id
// prompts, has vLLM's /tokenize, and, when it has not, how many tokens its
// tokenizer makes of llmslo's text, from the usage.prompt_tokens it reports.
// The simulator and the vLLM container have all of vLLM's extras and are
// not probed.
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
	f := &serverFeatures{Tokenize: hasTokenize(ctx, ep, hc)}
	if api == workload.APICompletions {
		ids := []int{workload.DefaultVocabMin, workload.DefaultVocabMin + 1, workload.DefaultVocabMin + 2}
		status, msg, _, err := probeRequest(ctx, ep, hc, api, ids)
		if err == nil && status/100 == 4 {
			f.TextPrompts, f.rejected = true, msg
		}
	}
	if api == workload.APICompletions && !f.TextPrompts || api == workload.APIChat && f.Tokenize {
		return f, nil // prompts are exact: token ids, or chat text measured by /tokenize
	}
	if err := f.size(ctx, ep, hc, api); err != nil {
		return nil, err
	}
	return f, nil
}

// hasTokenize reports whether the server answers vLLM's POST /tokenize
// with a count, for a plain prompt (a base model without a chat template
// has no count for messages).
func hasTokenize(ctx context.Context, ep *Endpoint, hc *http.Client) bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	b, _ := json.Marshal(map[string]any{"model": ep.Model, "prompt": "probe"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL+"/tokenize", bytes.NewReader(b))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var out struct {
		Count *int `json:"count"`
	}
	return resp.StatusCode/100 == 2 && json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out) == nil && out.Count != nil
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
		status, msg, usage, err := probeRequest(ctx, ep, hc, api, text)
		switch {
		case err == nil && status/100 == 4 && f.TextPrompts:
			return fmt.Errorf("the server rejects both token-id and text prompts on POST %s (status %d: %s; token ids: %s): check the model name, or use the chat API (--api chat, slotest.WithAPI)",
				path, status, msg, f.rejected)
		case err != nil:
			f.unsized = fmt.Sprintf("probe POST %s: %v", path, err)
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

// probeRequest sends one unstreamed request for one output token with
// prompt (token ids or text) and returns the status, the server's message
// when it failed, and usage.prompt_tokens when it did not.
func probeRequest(ctx context.Context, ep *Endpoint, hc *http.Client, api workload.API, prompt any) (status int, msg string, promptTokens int, err error) {
	body := map[string]any{"model": ep.Model, "max_tokens": 1, "stream": false}
	path := "/v1/completions"
	if api == workload.APIChat {
		path = "/v1/chat/completions"
		body["messages"] = []map[string]any{{"role": "user", "content": prompt}}
	} else {
		body["prompt"] = prompt
	}
	b, err := json.Marshal(body)
	if err != nil {
		return 0, "", 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL+path, bytes.NewReader(b))
	if err != nil {
		return 0, "", 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, "", 0, err
	}
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, client.ServerMessage(data), 0, nil
	}
	var out struct {
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	_ = json.Unmarshal(data, &out) // a body without usage leaves 0, which the caller judges
	return resp.StatusCode, "", out.Usage.PromptTokens, nil
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

// earlyEnd says the server cannot be held to the asked output length: one
// without vLLM's /tokenize is not vLLM, and ignore_eos and min_tokens are
// vLLM's.
func (f *serverFeatures) earlyEnd() bool { return f != nil && !f.Tokenize }

// lengthCheck is when a request's lengths count as a mismatch, given what
// the server can be held to.
func (f *serverFeatures) lengthCheck(tolerance float64) observe.LengthCheck {
	c := observe.LengthCheck{Tolerance: tolerance, EarlyEndAllowed: f.earlyEnd()}
	if f != nil && f.Sized {
		c.InputTolerance = sizedTolerance
	}
	return c
}

// notes say, once for the run, what the probe changed and what cannot be
// held on this server.
func (f *serverFeatures) notes() []string {
	if f == nil {
		return nil
	}
	var out []string
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
	if f.earlyEnd() {
		out = append(out, "the server is not vLLM (no /tokenize), so it cannot be held to the asked output lengths (no ignore_eos): a request may end early, and such outputs are counted (length_ended_early), not taken as mismatches")
	}
	return out
}

package load

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
)

// fakeServer answers as Ollama does: no /tokenize, token-id prompts
// refused with 400 (unless acceptIDs), text prompts counted at perWord
// tokens a word plus overhead; or refuses text as well (refuseText).
func fakeServer(t *testing.T, acceptIDs, refuseText bool, perWord, overhead int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Prompt   any `json:"prompt"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if r.URL.Path == "/tokenize" || json.NewDecoder(r.Body).Decode(&body) != nil {
			http.NotFound(w, r)
			return
		}
		text, isText := body.Prompt.(string)
		if len(body.Messages) > 0 {
			text, isText = body.Messages[0].Content, true
		}
		switch {
		case !isText && !acceptIDs:
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"json: cannot unmarshal array into Go struct field CompletionRequest.prompt of type string"}}`)
			return
		case isText && refuseText:
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"no text here"}}`)
			return
		}
		fmt.Fprintf(w, `{"choices":[{"text":"x"}],"usage":{"prompt_tokens":%d,"completion_tokens":1}}`, perWord*len(strings.Fields(text))+overhead)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A server that refuses token-id prompts gets text, sized from the prompt
// tokens it reports; the run's notes say both. It gives one token however
// many are asked with ignore_eos: the probe sees it, and it is refused
// unless its lengths are declared advisory.
func TestProbeSendsTextAndSizesItFromUsage(t *testing.T) {
	srv := fakeServer(t, false, false, 2, 3)
	ep := &Endpoint{Kind: KindURL, URL: srv.URL, Model: "m"}
	f, err := probeFeatures(t.Context(), ep, srv.Client(), workload.APICompletions)
	if err != nil {
		t.Fatal(err)
	}
	if !f.TextPrompts || f.Tokenize || !f.Sized || math.Abs(f.Text.TokensPerWord-2) > 1e-9 || math.Abs(f.Text.Overhead-3) > 1e-9 {
		t.Fatalf("features %+v: want text prompts sized at 2 tokens a word plus 3, no /tokenize", f)
	}
	notes := strings.Join(f.notes(true), "\n")
	for _, want := range []string{"rejects token-id prompts (json: cannot unmarshal array", "sent as text", "2.00 tokens a word",
		"declared advisory (it stops at EOS whatever ignore_eos says)", "the probe saw it give 1 of 16 output tokens"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes do not say %q:\n%s", want, notes)
		}
	}
	if notes := strings.Join(f.notes(false), "\n"); strings.Contains(notes, "ignore_eos") {
		t.Errorf("notes of a server not declared advisory speak of ignore_eos:\n%s", notes)
	}
	if !f.EndsEarly || f.checkLengths(true) != nil {
		t.Errorf("features %+v: want it seen ending early, and let through when declared advisory", f)
	}
	if err := f.checkLengths(false); err == nil || !strings.Contains(err.Error(), "--lengths-advisory") || !strings.Contains(err.Error(), "it gave 1") {
		t.Errorf("check without the declaration: %v; want a refusal naming --lengths-advisory", err)
	}
	if lc := f.lengthCheck(0.01, false); lc.EarlyEndAllowed || lc.InputTolerance != sizedTolerance {
		t.Errorf("length check %+v: want early ends held to the lengths (no /tokenize is no excuse), the sized prompts' tolerance", lc)
	}
	if lc := f.lengthCheck(0.01, true); !lc.EarlyEndAllowed {
		t.Errorf("length check %+v: want early ends allowed once declared advisory", lc)
	}
	var o workload.Options
	f.workloadOptions(&o)
	if !o.TextPrompts || o.Text != f.Text || o.Tokenizer != nil {
		t.Errorf("workload options %+v: want text prompts on the fitted model, no tokenizer", o)
	}
}

// A server that refuses both kinds of prompt stops the run before its
// first step, naming the fix, rather than running a step of 400s.
func TestProbeStopsWhenNoPromptIsAccepted(t *testing.T) {
	srv := fakeServer(t, false, true, 1, 0)
	ep := &Endpoint{Kind: KindURL, URL: srv.URL, Model: "m"}
	_, err := probeFeatures(t.Context(), ep, srv.Client(), workload.APICompletions)
	if err == nil || !strings.Contains(err.Error(), "rejects both token-id and text prompts") || !strings.Contains(err.Error(), "--api chat") {
		t.Fatalf("error %v: want one that names both refusals and the chat API", err)
	}
}

// A server that takes token ids needs no sizing; the chat API on it is
// sized from usage; targets llmslo started are not probed at all.
func TestProbeLeavesExactPromptsAlone(t *testing.T) {
	srv := fakeServer(t, true, false, 1, 7)
	ep := &Endpoint{Kind: KindURL, URL: srv.URL, Model: "m"}
	f, err := probeFeatures(t.Context(), ep, srv.Client(), workload.APICompletions)
	if err != nil || f.TextPrompts || f.Sized {
		t.Fatalf("completions: features %+v, %v: want token ids, unsized", f, err)
	}
	f, err = probeFeatures(t.Context(), ep, srv.Client(), workload.APIChat)
	if err != nil || !f.Sized || math.Abs(f.Text.Overhead-7) > 1e-9 {
		t.Fatalf("chat: features %+v, %v: want sized with the template's 7 tokens", f, err)
	}
	if f, err := probeFeatures(t.Context(), &Endpoint{Kind: KindSim, URL: srv.URL}, srv.Client(), workload.APICompletions); f != nil || err != nil {
		t.Fatalf("a started target was probed: %+v, %v", f, err)
	}
}

// A server that fails the probes is left to the step to measure: the run
// starts, on token ids, and says its prompts could not be sized.
func TestProbeLeavesAFailingServerToTheStep(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"overloaded"}`, http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	ep := &Endpoint{Kind: KindURL, URL: srv.URL, Model: "m"}
	f, err := probeFeatures(t.Context(), ep, srv.Client(), workload.APICompletions)
	if err != nil || f.TextPrompts || f.Sized {
		t.Fatalf("completions: features %+v, %v: want token ids and no error", f, err)
	}
	f, err = probeFeatures(t.Context(), ep, srv.Client(), workload.APIChat)
	if err != nil || f.Sized || !strings.Contains(strings.Join(f.notes(false), "\n"), "could not be measured (probe POST /v1/chat/completions: status 503") || f.EndsEarly {
		t.Fatalf("chat: features %+v, %v, notes %q: want unsized, said so, and nothing concluded of ignore_eos", f, err, f.notes(false))
	}
}

// vLLM's API, as the simulator serves it, takes token ids and has
// /tokenize: the probe changes nothing and says nothing.
func TestProbeFindsVLLMsExtras(t *testing.T) {
	srv := simtest.Start(t, vllmsim.Config{Model: "m", ProfileName: "instant"})
	ep := &Endpoint{Kind: KindURL, URL: srv.URL, Model: "m"}
	for _, api := range []workload.API{workload.APICompletions, workload.APIChat} {
		f, err := probeFeatures(t.Context(), ep, http.DefaultClient, api)
		if err != nil || f.TextPrompts || !f.Tokenize || f.Sized || f.EndsEarly || len(f.notes(false)) > 0 {
			t.Fatalf("%s: features %+v, %v, notes %q: want token ids, /tokenize and ignore_eos honoured, nothing to say", api, f, err, f.notes(false))
		}
	}
}

// A server that echoes the request in its refusal does not put the API key
// in the report's notes.
func TestProbeNotesHoldNoKey(t *testing.T) {
	const key = "sk-probe-secret"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Prompt any `json:"prompt"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		if _, text := body.Prompt.(string); !text {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":"no token ids (Authorization: %s)"}`, r.Header.Get("Authorization"))
			return
		}
		fmt.Fprint(w, `{"usage":{"prompt_tokens":9}}`)
	}))
	t.Cleanup(srv.Close)
	ep := &Endpoint{Kind: KindURL, URL: srv.URL, Model: "m", APIKey: key}
	f, err := probeFeatures(t.Context(), ep, ep.httpClient(), workload.APICompletions)
	if err != nil || !f.TextPrompts {
		t.Fatalf("features %+v, %v: want text prompts", f, err)
	}
	if notes := strings.Join(f.notes(false), "\n"); strings.Contains(notes, key) || !strings.Contains(notes, "[redacted]") {
		t.Fatalf("notes %q: want the key redacted", notes)
	}
}

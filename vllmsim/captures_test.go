package vllmsim

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/llmslo/llmslo/internal/vllmcaptures"
	"github.com/llmslo/llmslo/vllmsim/wire"
)

// The simulator's streams have the shapes of real vLLM's
// (internal/vllmcaptures): the same members, the same explicit nulls, the
// same order of chunk kinds.
func TestStreamsHaveVLLMsShape(t *testing.T) {
	s := start(t, Config{ProfileName: "instant"})
	// A completion without usage, to max_tokens.
	_, raw, _ := rawPost(t, s.URL+"/v1/completions", map[string]any{"prompt": "a b c", "max_tokens": 2, "ignore_eos": true, "stream": true})
	got, want := events(raw), captureEvents("completion-stream-length.sse")
	if kinds(t, got) != kinds(t, want) {
		t.Fatalf("completion chunk kinds %s, vLLM's %s", kinds(t, got), kinds(t, want))
	}
	for i := range 2 {
		sameShape(t, "completion chunk", json.RawMessage(want[i]), json.RawMessage(got[i]), "choices")
	}

	// A chat stream: the role chunk, then content.
	_, raw, _ = rawPost(t, s.URL+"/v1/chat/completions", map[string]any{"messages": []map[string]string{{"role": "user", "content": "hi"}},
		"max_tokens": 3, "ignore_eos": true, "stream": true})
	got, want = events(raw), captureEvents("chat-stream-role.sse")
	if k := kinds(t, got); !strings.HasPrefix(k, kinds(t, want)) || k != "role,token,token,final,done" {
		t.Fatalf("chat chunk kinds %s, vLLM's begin %s", k, kinds(t, want))
	}
	for i := range want {
		sameShape(t, "chat chunk", json.RawMessage(want[i]), json.RawMessage(got[i]), "choices")
	}
}

// A chat stream that stops at end-of-sequence ends as vLLM's does: a last
// chunk of empty content with finish_reason "stop".
func TestEOSChunkHasVLLMsShape(t *testing.T) {
	s := start(t, Config{ProfileName: "instant", EOSMeanTokens: 3})
	want := captureEvents("chat-stream-eos.sse")
	for i := range 50 {
		_, raw, _ := rawPost(t, s.URL+"/v1/chat/completions", map[string]any{"messages": []map[string]string{{"role": "user", "content": "q" + strings.Repeat(" x", i)}},
			"max_tokens": 20, "stream": true})
		got := events(raw)
		if k := kinds(t, got); !strings.HasSuffix(k, "token,final,done") || !strings.Contains(got[len(got)-2], `"finish_reason":"stop"`) {
			continue
		}
		if !strings.HasSuffix(kinds(t, want), "token,final") {
			t.Fatalf("the capture's kinds %s", kinds(t, want))
		}
		last, wlast := got[len(got)-2], want[len(want)-1]
		sameShape(t, "EOS chunk", json.RawMessage(wlast), json.RawMessage(last), "choices")
		if !strings.Contains(last, `"delta":{"content":""}`) || !strings.Contains(wlast, `"delta":{"content":""}`) {
			t.Fatalf("EOS chunk %s; vLLM's %s", last, wlast)
		}
		return
	}
	t.Fatal("no request of 50 stopped at end-of-sequence after a token")
}

// A chat stream with include_usage and continuous_usage_stats that stops at
// end-of-sequence is vLLM's: the role chunk, token chunks and the stop chunk
// of empty content each carry the usage so far, then the usage-only chunk
// ("choices":[]) repeats the last usage, then [DONE]. The members, the
// explicit nulls and the usage's member order are the capture's.
func TestUsageStreamHasVLLMsShape(t *testing.T) {
	s := start(t, Config{ProfileName: "instant", EOSMeanTokens: 3})
	want := captureEvents("chat-stream-usage-continuous.sse")
	if k := runs(kinds(t, want)); k != "role,token,final,usage,done" {
		t.Fatalf("the capture's kinds %s", k)
	}
	for i := range 50 {
		_, raw, _ := rawPost(t, s.URL+"/v1/chat/completions", map[string]any{"messages": []map[string]string{{"role": "user", "content": "q" + strings.Repeat(" x", i)}},
			"max_tokens": 20, "stream": true, "stream_options": map[string]any{"include_usage": true, "continuous_usage_stats": true}})
		got := events(raw)
		if k := runs(kinds(t, got)); k != runs(kinds(t, want)) || !strings.Contains(got[len(got)-3], `"finish_reason":"stop"`) {
			continue
		}
		n, wn := len(got), len(want)
		for _, c := range []struct {
			what      string
			vllm, sim string
		}{
			{"role chunk", want[0], got[0]},
			{"token chunk", want[1], got[1]},
			{"stop chunk", want[wn-3], got[n-3]},
			{"usage chunk", want[wn-2], got[n-2]},
		} {
			sameShape(t, c.what, json.RawMessage(c.vllm), json.RawMessage(c.sim), "choices", "usage")
			if w, g := usageOrder(t, c.vllm), usageOrder(t, c.sim); w != g {
				t.Errorf("%s: usage members %s, vLLM's %s", c.what, g, w)
			}
		}
		if !strings.Contains(got[n-3], `"delta":{"content":""}`) {
			t.Errorf("stop chunk %s; vLLM's %s", got[n-3], want[wn-3])
		}
		// As in vLLM's, the usage chunk repeats the stop chunk's usage.
		for _, evs := range [][]string{want, got} {
			if u, last := usageOf(t, evs[len(evs)-2]), usageOf(t, evs[len(evs)-3]); u != last {
				t.Errorf("usage chunk %s after a stop chunk with %s", u, last)
			}
		}

		// With include_usage alone (continuous_usage_stats is off by
		// default in the vLLM simulated) the usage chunk is the same.
		_, raw, _ = rawPost(t, s.URL+"/v1/chat/completions", map[string]any{"messages": []map[string]string{{"role": "user", "content": "q" + strings.Repeat(" x", i)}},
			"max_tokens": 20, "stream": true, "stream_options": map[string]any{"include_usage": true}})
		got = events(raw)
		if k := runs(kinds(t, got)); k != runs(kinds(t, want)) {
			t.Fatalf("include_usage alone: kinds %s, vLLM's %s", k, runs(kinds(t, want)))
		}
		sameShape(t, "usage chunk (include_usage alone)", json.RawMessage(want[wn-2]), json.RawMessage(got[len(got)-2]), "choices", "usage")
		return
	}
	t.Fatal("no request of 50 stopped at end-of-sequence after a token")
}

// runs collapses each run of one kind in a comma-separated list to one.
func runs(kinds string) string {
	var out []string
	for _, k := range strings.Split(kinds, ",") {
		if len(out) == 0 || out[len(out)-1] != k {
			out = append(out, k)
		}
	}
	return strings.Join(out, ",")
}

// usageOf is a chunk's usage object as written.
func usageOf(t *testing.T, data string) string {
	t.Helper()
	var c struct{ Usage json.RawMessage }
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		t.Fatalf("chunk %s: %v", data, err)
	}
	return string(c.Usage)
}

// usageOrder is the names of a chunk's usage members in the order written.
func usageOrder(t *testing.T, data string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(usageOf(t, data)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("usage of %s is not an object", data)
	}
	var names []string
	for dec.More() {
		name, _ := dec.Token()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("usage of %s: %v", data, err)
		}
		names = append(names, name.(string))
	}
	return strings.Join(names, ",")
}

// digits stands for every number in an error message.
var digits = regexp.MustCompile(`[0-9]+`)

// The simulator's errors are vLLM's: the 503 of admission byte for byte,
// the 404 for an unknown model and the 400 for a request over the context
// in the same members, types, params and wording (numbers aside).
func TestErrorsHaveVLLMsShape(t *testing.T) {
	s := start(t, Config{ProfileName: "instant", MaxModelLen: 1024})
	_, raw := postJSON(t, s.URL+"/v1/chat/completions", map[string]any{"messages": []map[string]string{{"role": "user", "content": textPrompt("w", 900)}}, "max_tokens": 256})
	sameError(t, "error-400-context-length.json", raw)
	_, raw = postJSON(t, s.URL+"/v1/completions", map[string]any{"model": "QwQ-32B-Q4_K_M", "prompt": "a"})
	sameError(t, "error-404-model.json", raw)
	legacy := start(t, Config{ProfileName: "instant", ErrorFormat: ErrorFormatLegacy})
	_, raw = postJSON(t, legacy.URL+"/v1/completions", map[string]any{"model": "Qwen1.5-14B-Chat-GPTQ-Int8", "prompt": "a"})
	sameError(t, "error-404-model-legacy-live.json", raw)

	busy := start(t, Config{Profile: slowSteps, MaxNumQueuedReqs: 1})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		postJSON(t, busy.URL+"/v1/completions", map[string]any{"prompt": "a", "max_tokens": 2})
	}()
	waitFor(t, func() bool { return busy.Stats().Running+busy.Stats().Waiting == 1 })
	_, raw = postJSON(t, busy.URL+"/v1/completions", map[string]any{"prompt": "a", "max_tokens": 2})
	wg.Wait()
	if want := strings.TrimSpace(string(vllmcaptures.Read("error-503-admission.json"))); string(raw) != want {
		t.Fatalf("admission's 503\n%s\nvLLM's\n%s", raw, want)
	}
}

func sameError(t *testing.T, capture string, raw []byte) {
	t.Helper()
	want := json.RawMessage(vllmcaptures.Read(capture))
	sameShape(t, capture, want, raw, "error")
	var w, g struct {
		wire.ErrorInfo
		Error *wire.ErrorInfo `json:"error"`
	}
	_ = json.Unmarshal(want, &w)
	_ = json.Unmarshal(raw, &g)
	wi, gi := &w.ErrorInfo, &g.ErrorInfo
	if w.Error != nil {
		wi, gi = w.Error, g.Error
	}
	if gi == nil || wi.Type != gi.Type || wi.Code != gi.Code || (wi.Param == nil) != (gi.Param == nil) ||
		(wi.Param != nil && *wi.Param != *gi.Param) || digits.ReplaceAllString(wi.Message, "N") != digits.ReplaceAllString(gi.Message, "N") {
		t.Errorf("%s: the simulator's\n%s\nvLLM's\n%s", capture, raw, want)
	}
}

// GET /v1/models and POST /tokenize answer in vLLM's members.
func TestModelsAndTokenizeHaveVLLMsShape(t *testing.T) {
	s := start(t, Config{ProfileName: "instant"})
	var got, want struct{ Data []json.RawMessage }
	resp := getBody(t, s.URL+"/v1/models")
	_ = json.Unmarshal(resp, &got)
	_ = json.Unmarshal(vllmcaptures.Read("models.json"), &want)
	if len(got.Data) != 1 {
		t.Fatalf("/v1/models %s", resp)
	}
	sameShape(t, "model card", want.Data[0], got.Data[0])
	_, raw := postJSON(t, s.URL+"/tokenize", map[string]any{"prompt": "a b c"})
	sameShape(t, "tokenize", vllmcaptures.Read("tokenize.json"), raw)
}

// sample is a line of the text exposition: vllm:name{labels} value.
var sample = regexp.MustCompile(`^(vllm:[a-z_:]+)\{([^}]*)\}`)

// labelSets maps each vllm: sample name to the sorted names of its labels.
func labelSets(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		m := sample.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var names []string
		for _, kv := range strings.Split(m[2], ",") {
			if n, _, ok := strings.Cut(kv, "="); ok && n != "le" {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		out[m[1]] = strings.Join(names, ",")
	}
	return out
}

// /metrics serves every vllm: series of the captured V1 scrapes, under the
// same names and with the same labels (engine among them).
func TestMetricsHaveVLLMsNamesAndLabels(t *testing.T) {
	s := start(t, Config{ProfileName: "instant"})
	streamCompletion(t, s.URL, map[string]any{"prompt": "a b c", "max_tokens": 3, "ignore_eos": true})
	served := labelSets(string(getBody(t, s.URL+"/metrics")))
	for _, name := range []string{"metrics-v1-engine.txt", "metrics-v1-two-engines.txt", "metrics-v1-aicr.txt"} {
		for series, labels := range labelSets(string(vllmcaptures.Read(name))) {
			if got, ok := served[series]; !ok || got != labels {
				t.Errorf("%s: %s{%s} served as {%s} (present %v)", name, series, labels, got, ok)
			}
		}
	}
}

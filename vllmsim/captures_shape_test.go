package vllmsim

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/llmslo/llmslo/internal/vllmcaptures"
)

// newerMembers are members the simulator writes that a capture may lack
// because it came from an older vLLM than the one simulated (v0.30–0.32):
// the final chunk's system_fingerprint, and the chat choice's explicit
// stop_reason and token_ids nulls. Any other difference fails.
var newerMembers = map[string]bool{"system_fingerprint": true, "stop_reason": true, "token_ids": true}

// shape is a JSON object's member names, and which of them are null.
type shape struct{ names, nulls []string }

func shapeOf(t *testing.T, raw json.RawMessage) (shape, map[string]json.RawMessage) {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("%s is not a JSON object: %v", raw, err)
	}
	var s shape
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		s.names = append(s.names, k)
		if string(obj[k]) == "null" {
			s.nulls = append(s.nulls, k)
		}
	}
	return s, obj
}

// sameShape fails when an object of the simulator's lacks a member of the
// capture's, writes it null where vLLM does not (or the other way), or has
// a member vLLM does not write and newerMembers does not allow. It
// descends into the members named in nested (choices[0], delta, error).
func sameShape(t *testing.T, what string, capture, sim json.RawMessage, nested ...string) {
	t.Helper()
	cs, cobj := shapeOf(t, capture)
	ss, sobj := shapeOf(t, sim)
	for _, k := range cs.names {
		if _, ok := sobj[k]; !ok {
			t.Errorf("%s: the simulator lacks %q (vLLM: %s; simulator: %s)", what, k, capture, sim)
		}
		if (string(cobj[k]) == "null") != (string(sobj[k]) == "null") && sobj[k] != nil {
			t.Errorf("%s: %q is %s in vLLM's, %s in the simulator's", what, k, cobj[k], sobj[k])
		}
	}
	for _, k := range ss.names {
		if _, ok := cobj[k]; !ok && !newerMembers[k] {
			t.Errorf("%s: the simulator writes %q, which vLLM does not (vLLM: %s)", what, k, capture)
		}
	}
	for _, k := range nested {
		c, s := cobj[k], sobj[k]
		if c == nil || s == nil {
			continue
		}
		if c[0] == '[' {
			var ca, sa []json.RawMessage
			_ = json.Unmarshal(c, &ca)
			_ = json.Unmarshal(s, &sa)
			if len(ca) == 0 || len(sa) == 0 {
				if len(ca) != len(sa) {
					t.Errorf("%s: %q has %d elements in vLLM's, %d in the simulator's", what, k, len(ca), len(sa))
				}
				continue
			}
			c, s = ca[0], sa[0]
		}
		sameShape(t, what+"."+k, c, s, "delta")
	}
}

// captureEvents is a captured stream's event data, in order.
func captureEvents(name string) []string { return events(string(vllmcaptures.Read(name))) }

// kind names a chunk by what it carries, for the order of chunk kinds.
func kind(t *testing.T, data string) string {
	t.Helper()
	if data == "[DONE]" {
		return "done"
	}
	var c struct {
		Choices []struct {
			Text         *string                          `json:"text"`
			Delta        *struct{ Role, Content *string } `json:"delta"`
			FinishReason *string                          `json:"finish_reason"`
		} `json:"choices"`
		Usage json.RawMessage `json:"usage"`
	}
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		t.Fatalf("chunk %s: %v", data, err)
	}
	switch {
	case len(c.Choices) == 0:
		return "usage"
	case c.Choices[0].FinishReason != nil:
		return "final"
	case c.Choices[0].Delta != nil && c.Choices[0].Delta.Role != nil:
		return "role"
	}
	return "token"
}

func kinds(t *testing.T, evs []string) string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = kind(t, e)
	}
	return strings.Join(out, ",")
}

// getBody GETs url and returns the body.
func getBody(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package client

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmslo/llmslo/internal/vllmcaptures"
)

// chunkSeeds are events of every shape the parser must tell apart.
var chunkSeeds = []string{
	`{"choices":[{"index":0,"text":" w","logprobs":null,"finish_reason":null}],"usage":null}`,
	`{"choices":[{"delta":{"role":"assistant","content":""}}]}`,
	`{"choices":[{"delta":{"reasoning_content":"hm"}}]}`,
	`{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":20,"total_tokens":32}}`,
	`{"error":{"message":"boom","code":500}}`,
	`{"object":"error","message":"boom"}`,
	`{"choices":[{"text":"\u00e9\n"}],"x":[1,-2.5e3,true,false,null,{"y":"z"}]}`,
	`{"choices":[{"text":" w"}`,
	`[1,2]`,
	`{"a":01}`,
	`{"choices":[{"index":0,"text":""},{"index":1,"text":"b"}]}`,
	`{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`,
	`{"choices":null,"usage":{"prompt_tokens":null,"completion_tokens":2}}`,
	`{"usage":{"prompt_tokens":1},"usage":null,"usage":{"completion_tokens":-1}}`,
	`{"error":"boom","message":"top"}`,
	`{"message":"top","error":{"code":1}}`,
	`{"error":[1, 2]}`,
	`{"ch\u006fices":5}`,
	`{"choices":[{"text":NaN}]}`,
	"{\"choices\":[{\"text\":\"a\tb\"}]}",
	"{\"\":[{\"\":\"\x00\\b\"}]}", // a control character before an escape
	`{"usage":{"prompt_tokens":"12"}}`,
	`{"usage":{"completion_tokens":1.0}}`,
	`{"choices":[{"delta":null,"text":null}],"usage":{}}`,
	`{"error":null,"object":"chat.completion.chunk"}`,
	" \t{\"choices\" : [ ] }\r\n",
	`{"choices":[{"text":"a"}]} x`,
}

// FuzzParseChunk checks the parser against encoding/json: it accepts only
// valid JSON, refuses valid JSON only for a wrongly shaped known member, and
// reads what refChunk reads.
func FuzzParseChunk(f *testing.F) {
	for _, s := range chunkSeeds {
		f.Add([]byte(s))
	}
	for _, bc := range benchChunks {
		f.Add([]byte(bc.data))
	}
	for _, name := range vllmcaptures.Names() { // real vLLM events and bodies
		for _, line := range strings.Split(string(vllmcaptures.Read(name)), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				f.Add([]byte(d))
			} else if strings.HasPrefix(line, "{") {
				f.Add([]byte(line))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got chunk
		err := parseChunk(data, &got)
		valid := json.Valid(data)
		if err == nil && !valid {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		if !valid || deepestNesting(data) >= maxJSONDepth {
			return
		}
		if err != nil {
			// Valid JSON is refused only for its shape, and says so.
			if _, isShape := err.(*malformedError); !isShape || !strings.Contains(err.Error(), " is not ") {
				t.Fatalf("refused valid JSON %q: %v", data, err)
			}
		}
		if bytes.IndexByte(data, '\\') >= 0 {
			return // the parser compares names as written, the reference decodes them
		}
		want, msgKnown, ok := refChunk(data)
		if (err == nil) != ok {
			t.Fatalf("%q: error %v, reference accepts: %v", data, err, ok)
		}
		if !ok {
			return
		}
		if got.tokens != want.tokens || got.hasUsage != want.hasUsage || got.prompt != want.prompt ||
			got.completion != want.completion || got.failed != want.failed {
			t.Fatalf("%q: got %+v, reference %+v", data, got, want)
		}
		if msgKnown && utf8.Valid(data) && !bytes.Equal(got.message, want.message) {
			t.Fatalf("%q: message %q, reference %q", data, got.message, want.message)
		}
	})
}

// jsonValue is a decoded value that keeps members in order, repeats included.
type jsonValue struct {
	kind    byte // '{', '[', '"', '0' (number), 'n' (null), 'b' (boolean)
	text    string
	members []jsonMember
	elems   []jsonValue
}

type jsonMember struct {
	name string
	v    jsonValue
}

func decodeValue(dec *json.Decoder) (jsonValue, error) {
	tok, err := dec.Token()
	if err != nil {
		return jsonValue{}, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		v := jsonValue{kind: byte(tok)}
		for dec.More() {
			var name string
			if tok == '{' {
				k, err := dec.Token()
				if err != nil {
					return v, err
				}
				name = k.(string)
			}
			e, err := decodeValue(dec)
			if err != nil {
				return v, err
			}
			if tok == '{' {
				v.members = append(v.members, jsonMember{name, e})
			} else {
				v.elems = append(v.elems, e)
			}
		}
		_, err := dec.Token() // the closing delimiter
		return v, err
	case string:
		return jsonValue{kind: '"', text: tok}, nil
	case json.Number:
		return jsonValue{kind: '0', text: string(tok)}, nil
	case nil:
		return jsonValue{kind: 'n'}, nil
	}
	return jsonValue{kind: 'b'}, nil
}

// refChunk reads valid JSON data as parseChunk should. msgKnown is false
// where the message is the raw text of a non-string value.
func refChunk(data []byte) (c chunk, msgKnown, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	top, err := decodeValue(dec)
	if err != nil || top.kind != '{' {
		return c, false, false
	}
	text := func(v jsonValue) bool {
		c.tokens = c.tokens || v.kind == '"' && v.text != ""
		return v.kind == '"' || v.kind == 'n'
	}
	count := func(v jsonValue, n *int) bool {
		if v.kind == 'n' {
			return true
		}
		x, err := strconv.Atoi(v.text)
		if v.kind != '0' || err != nil || x < 0 {
			return false
		}
		*n = x
		return true
	}
	var errMsg, topMsg []byte
	hasErr, hasTop := false, false
	msgKnown = true
	for _, m := range top.members {
		v := m.v
		switch m.name {
		case "choices":
			if v.kind != 'n' && v.kind != '[' {
				return c, msgKnown, false
			}
			if len(v.elems) == 0 {
				continue
			}
			if v.elems[0].kind != '{' {
				return c, msgKnown, false
			}
			for _, m := range v.elems[0].members {
				switch {
				case m.name == "text" && !text(m.v):
					return c, msgKnown, false
				case m.name != "delta" || m.v.kind == 'n':
				case m.v.kind != '{':
					return c, msgKnown, false
				default:
					for _, d := range m.v.members {
						switch d.name {
						case "content", "reasoning_content", "reasoning":
							if !text(d.v) {
								return c, msgKnown, false
							}
						}
					}
				}
			}
		case "usage":
			if v.kind != 'n' && v.kind != '{' {
				return c, msgKnown, false
			}
			c.hasUsage = c.hasUsage || v.kind == '{'
			for _, u := range v.members {
				if u.name == "prompt_tokens" && !count(u.v, &c.prompt) ||
					u.name == "completion_tokens" && !count(u.v, &c.completion) {
					return c, msgKnown, false
				}
			}
		case "error":
			if v.kind == 'n' {
				continue
			}
			c.failed = true
			if v.kind != '{' {
				hasErr, msgKnown = true, false
			}
			for _, e := range v.members {
				if e.name == "message" && e.v.kind == '"' {
					errMsg, hasErr = []byte(e.v.text), true
				}
			}
		case "object":
			c.failed = c.failed || v.kind == '"' && v.text == "error"
		case "message":
			if v.kind == '"' && !hasTop {
				topMsg, hasTop = []byte(v.text), true
			}
		}
	}
	if c.failed && hasErr {
		c.message = errMsg
	} else if c.failed && hasTop {
		c.message = topMsg
	}
	return c, msgKnown, true
}

// deepestNesting is a rough bound on nesting depth (brackets in strings
// count too, which only makes it larger).
func deepestNesting(b []byte) int {
	depth, deepest := 0, 0
	for _, c := range b {
		switch c {
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	return deepest
}

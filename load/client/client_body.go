package client

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/llmslo/llmslo/load/workload"
)

// requestEncoder writes request bodies by hand into pooled buffers: at
// thousands of requests a second, with prompts of ten thousand token ids,
// encoding/json's reflection would cost more than the rest of the client.
type requestEncoder struct {
	api   workload.API
	model string
	// extra holds the pre-encoded ExtraBody members, each starting with a
	// comma; overridden names the standard fields ExtraBody replaces.
	extra      []byte
	overridden map[string]bool
}

var bodyPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func newRequestEncoder(api workload.API, model string, extraBody map[string]any) (*requestEncoder, error) {
	e := &requestEncoder{api: api, model: model, overridden: map[string]bool{}}
	keys := make([]string, 0, len(extraBody))
	for k := range extraBody {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, err := json.Marshal(extraBody[k])
		if err != nil {
			return nil, fmt.Errorf("load: ExtraBody field %q: %w", k, err)
		}
		e.extra = append(e.extra, ',')
		e.extra = appendJSONString(e.extra, k)
		e.extra = append(e.extra, ':')
		e.extra = append(e.extra, v...)
		e.overridden[k] = true
	}
	return e, nil
}

// encode appends the body for req to b.
func (e *requestEncoder) encode(b []byte, req workload.Request) []byte {
	b = append(b, '{')
	first := true
	field := func(name string) bool {
		if e.overridden[name] {
			return false
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		return true
	}
	if field("model") {
		b = appendJSONString(b, e.model)
	}
	if e.api == workload.APIChat {
		if field("messages") {
			if len(req.Messages) > 0 {
				b = appendMessages(b, req.Messages)
			} else {
				b = append(b, `[{"role":"user","content":`...)
				b = appendJSONString(b, req.Prompt)
				b = append(b, '}', ']')
			}
		}
	} else if field("prompt") {
		if len(req.PromptIDs) > 0 {
			b = append(b, '[')
			for i, id := range req.PromptIDs {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, int64(id), 10)
			}
			b = append(b, ']')
		} else {
			b = appendJSONString(b, req.Prompt)
		}
	}
	if req.OutputTokens > 0 {
		lengths := []string{"max_tokens", "min_tokens"}
		if e.api == workload.APIChat {
			lengths = []string{"max_completion_tokens", "max_tokens", "min_tokens"}
		}
		for _, name := range lengths {
			if field(name) {
				b = strconv.AppendInt(b, int64(req.OutputTokens), 10)
			}
		}
		if field("ignore_eos") {
			b = append(b, "true"...)
		}
	}
	if field("stream") {
		b = append(b, "true"...)
	}
	if field("stream_options") {
		b = append(b, `{"include_usage":true,"continuous_usage_stats":false}`...)
	}
	if e.api != workload.APIChat && field("temperature") {
		b = append(b, '0')
	}
	if first && len(e.extra) > 0 {
		b = append(b, e.extra[1:]...) // every standard field was overridden
	} else {
		b = append(b, e.extra...)
	}
	return append(b, '}')
}

// appendJSONString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// as encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

package observe

import (
	"regexp"
	"strings"
)

// MessagesPerClass is how many distinct server messages a step keeps for
// each error class: enough to show what a 400 said ("This model's maximum
// context length is …") without a report that grows with the failures.
const MessagesPerClass = 3

// ErrorMessages keeps the first MessagesPerClass distinct messages the
// server gave for each error class, in the order they came. The error
// counts say how often a class happened; these say why, in the server's
// words. It is not safe for concurrent use: the Recorder's lock guards it.
type ErrorMessages struct {
	byClass map[string][]string
}

// NewErrorMessages returns an empty collection.
func NewErrorMessages() *ErrorMessages { return &ErrorMessages{byClass: map[string][]string{}} }

// bearer matches a bearer token in a message. The client already removes
// its own API key; a server or proxy that echoes other credentials (another
// tenant's, a gateway's) must not put them in a report that is shared.
var bearer = regexp.MustCompile(`(?i)(bearer\s+)([^\s",;]+)`)

// Add keeps msg for class unless the class already has MessagesPerClass
// messages or this one. An empty message is not kept.
func (m *ErrorMessages) Add(class, msg string) {
	msg = strings.TrimSpace(msg)
	if msg == "" || class == "" {
		return
	}
	msg = bearer.ReplaceAllStringFunc(msg, func(s string) string {
		if strings.HasSuffix(s, "[redacted]") {
			return s
		}
		return bearer.ReplaceAllString(s, "${1}[redacted]")
	})
	kept := m.byClass[class]
	if len(kept) >= MessagesPerClass {
		return
	}
	for _, k := range kept {
		if k == msg {
			return
		}
	}
	m.byClass[class] = append(kept, msg)
}

// Report returns the messages by class, a copy; nil when there are none.
func (m *ErrorMessages) Report() map[string][]string {
	if len(m.byClass) == 0 {
		return nil
	}
	out := make(map[string][]string, len(m.byClass))
	for c, msgs := range m.byClass {
		out[c] = append([]string(nil), msgs...)
	}
	return out
}

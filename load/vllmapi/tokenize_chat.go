package vllmapi

import "context"

// chatMessage is workload.Message, spelled out so that this package need
// not import workload (whose tests import this one).
type chatMessage = struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// CountChat implements workload.ChatTokenizer: the prompt tokens of a whole
// conversation, as /v1/chat/completions renders it. A session's turns are
// made exact with it on the chat API.
func (t *HTTPTokenizer) CountChat(ctx context.Context, msgs []chatMessage) (int, error) {
	m := make([]tokenizeMessage, len(msgs))
	for i, msg := range msgs {
		m[i] = tokenizeMessage(msg)
	}
	return t.count(ctx, m)
}

package client

import "github.com/llmslo/llmslo/load/workload"

// appendMessages appends a session turn's conversation as the chat API's
// messages array.
func appendMessages(b []byte, msgs []workload.Message) []byte {
	b = append(b, '[')
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"role":`...)
		b = appendJSONString(b, m.Role)
		b = append(b, `,"content":`...)
		b = appendJSONString(b, m.Content)
		b = append(b, '}')
	}
	return append(b, ']')
}

package client

import (
	"net/http"
	"strings"
)

// ClassShed is a request the server refused at admission: vLLM's 503 from
// --max-num-queued-reqs or --max-num-queued-tokens (since 0.29). The
// server chose not to serve it, which is not the same as failing it; the
// report counts it apart, but a user turned away was still not served.
const ClassShed ErrorClass = "shed"

// admissionWords are what vLLM's admission errors say (QueueOverflowError,
// MaxQueuedTokensError in vllm/exceptions.py).
var admissionWords = []string{
	"cannot accept new requests",
	"prefill token backlog limit",
}

// isShed reports whether a response of status with the server's message
// msg is a refusal by admission control.
func isShed(status int, msg string) bool {
	if status != http.StatusServiceUnavailable {
		return false
	}
	for _, w := range admissionWords {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

package client

import (
	"fmt"
	"time"

	"github.com/llmslo/llmslo/load/workload"
)

// ErrorClass names why a request failed. The empty class is success.
type ErrorClass string

// Error classes. HTTP statuses are classed by HTTPStatusClass.
const (
	ClassConnect    ErrorClass = "connect"    // no connection, or the request could not be written
	ClassReset      ErrorClass = "reset"      // the connection broke mid-stream
	ClassStall      ErrorClass = "stall"      // no event within the stall timeout
	ClassMalformed  ErrorClass = "malformed"  // an event that is not valid JSON of the expected shape
	ClassNoTokens   ErrorClass = "no_tokens"  // the stream ended with no generated token
	ClassTimeout    ErrorClass = "timeout"    // the overall request timeout passed
	ClassCanceled   ErrorClass = "canceled"   // the caller's context ended (a cancelled run)
	ClassUnfinished ErrorClass = "unfinished" // still in flight when the step's drain bound passed
	ClassDropped    ErrorClass = "dropped"    // never sent: the client's in-flight cap was reached
	// ClassClientLimit: never sent, the client's own process ran out of
	// file descriptors or local ports. The server never saw the request:
	// it is the client's failure, not the server's.
	ClassClientLimit ErrorClass = "client_limit"
)

// HTTPStatusClass is the class of a response with a non-2xx status.
func HTTPStatusClass(code int) ErrorClass { return ErrorClass(fmt.Sprintf("http_%d", code)) }

// Outcome is what one request did, on the monotonic clock. The dispatcher
// sets Intended; the Doer sets everything else.
type Outcome struct {
	Request workload.Request

	Intended time.Time // t_i: the schedule's send time
	Sent     time.Time // s_i: just before the request was written
	Written  time.Time // when its last byte was written (zero if never)
	First    time.Time // f_i: first event carrying a generated token
	Last     time.Time // l_i: last event carrying a generated token

	// ITL holds the gaps between consecutive token-carrying events.
	ITL []time.Duration
	// TokenEvents counts events that carried at least one token;
	// MultiTokenEvents those that carried more than one. TrailingTokens
	// counts the tokens carried after Last by no token event: the
	// end-of-sequence token of a stop chunk without text, which vLLM
	// counts in completion_tokens.
	TokenEvents      int
	MultiTokenEvents int
	TrailingTokens   int

	// PromptTokens and CompletionTokens come from the usage the server
	// reported; UsageReported says whether it did. Without usage,
	// CompletionTokens is the count of token events.
	PromptTokens     int
	CompletionTokens int
	UsageReported    bool
	// CachedPromptTokens is usage.prompt_tokens_details.cached_tokens: the
	// prompt tokens served from the prefix cache, when the server reports
	// it (CachedReported; vLLM does with --enable-prompt-tokens-details).
	CachedPromptTokens int
	CachedReported     bool

	// Class is empty on success; Err says more when it is not.
	Class ErrorClass
	Err   error
	// Message is the server's own words for the failure, when it gave
	// any: the message of an error body (vLLM's {"error": {...}} envelope
	// or its older flat {"object": "error", ...}), the body itself when it
	// is plain text, or the message of an error event in the stream. Like
	// Err, it never holds the API key.
	Message string

	// OnFirst, when set by the caller, is called once with First as soon
	// as the first token arrives, long before the request ends: a step
	// judged while it runs learns its TTFTs then.
	OnFirst func(first time.Time)
}

// OK reports whether the request succeeded.
func (o *Outcome) OK() bool { return o.Class == "" }

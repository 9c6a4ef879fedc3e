package load

import (
	"context"
	"fmt"
	"time"
)

// API selects the OpenAI-compatible endpoint a request goes to.
type API string

// The endpoints the client speaks.
const (
	APICompletions API = "completions" // POST /v1/completions; prompt as token ids when PromptIDs is set
	APIChat        API = "chat"        // POST /v1/chat/completions; prompt as one user message
)

// Request is one request the workload asks for.
type Request struct {
	// Index is the request's position in the step's schedule.
	Index int
	// PromptIDs, when set, is sent as the prompt on the completions API
	// (exact input length). Otherwise Prompt is sent as text.
	PromptIDs []int
	// Prompt is the text prompt: the completions prompt when PromptIDs is
	// empty, the single user message on the chat API.
	Prompt string
	// InputTokens is the prompt length the workload asked for.
	InputTokens int
	// OutputTokens is the output length the workload asked for; it is sent
	// as max_tokens and min_tokens with ignore_eos.
	OutputTokens int
}

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
)

// HTTPStatusClass is the class of a response with a non-2xx status.
func HTTPStatusClass(code int) ErrorClass { return ErrorClass(fmt.Sprintf("http_%d", code)) }

// Outcome is what one request did, on the monotonic clock. The dispatcher
// sets Intended; the Doer sets everything else.
type Outcome struct {
	Request Request

	Intended time.Time // t_i: the schedule's send time
	Sent     time.Time // s_i: just before the request was written
	First    time.Time // f_i: first event carrying a generated token
	Last     time.Time // l_i: last event carrying a generated token

	// ITL holds the gaps between consecutive token-carrying events.
	ITL []time.Duration
	// TokenEvents counts events that carried at least one token;
	// MultiTokenEvents those that carried more than one.
	TokenEvents      int
	MultiTokenEvents int

	// PromptTokens and CompletionTokens come from the usage the server
	// reported; UsageReported says whether it did. Without usage,
	// CompletionTokens is the count of token events.
	PromptTokens     int
	CompletionTokens int
	UsageReported    bool

	// Class is empty on success; Err says more when it is not.
	Class ErrorClass
	Err   error
}

// OK reports whether the request succeeded.
func (o *Outcome) OK() bool { return o.Class == "" }

// Doer sends one request and fills out. It must return when the response
// ends or ctx is done, whichever comes first, and must set out.Sent just
// before it writes the request.
type Doer interface {
	Do(ctx context.Context, req Request, out *Outcome)
}

// DoerFunc adapts a function to Doer.
type DoerFunc func(ctx context.Context, req Request, out *Outcome)

// Do calls f.
func (f DoerFunc) Do(ctx context.Context, req Request, out *Outcome) { f(ctx, req, out) }

// Workload yields the requests of a run. Request(i) must be deterministic for
// a given workload and safe to call from one goroutine at a time.
type Workload interface {
	Request(i int) Request
}

// WorkloadFunc adapts a function to Workload.
type WorkloadFunc func(i int) Request

// Request calls f.
func (f WorkloadFunc) Request(i int) Request { return f(i) }

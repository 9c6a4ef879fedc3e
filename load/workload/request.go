package workload

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
	// Messages, when set, is the whole conversation a chat request sends
	// (a session's turn: user and assistant alternating, a user message
	// last), in place of Prompt.
	Messages []Message
	// InputTokens is the prompt length the workload asked for.
	InputTokens int
	// OutputTokens is the output length the workload asked for; it is sent
	// as max_tokens and min_tokens with ignore_eos.
	OutputTokens int
	// Body is the request's encoded body when it was prepared ahead of its
	// intended time (see dispatch.Preparer); empty, the Doer encodes it as
	// it sends, and that time counts as send lag.
	Body []byte
	// Session, Agent and Turn place the request in a replayed session:
	// Session names it, Agent the sub-agent that sent the request (empty
	// for the main thread), Turn its turn in that thread. All are zero
	// for plain requests. The per-request records (docs/requests.md)
	// carry them unchanged.
	Session string
	Agent   string
	Turn    int
}

// Workload yields the requests of a run. Request(i) must be deterministic for
// a given workload and safe to call from one goroutine at a time.
type Workload interface {
	Request(i int) Request
}

// WorkloadFunc adapts a function to Workload.
type WorkloadFunc func(i int) Request

// Request calls f.
func (f WorkloadFunc) Request(i int) Request { return f(i) }

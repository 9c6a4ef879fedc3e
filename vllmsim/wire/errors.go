package wire

import (
	"encoding/json"
	"net/http"
)

// Error body shapes. vLLM answered errors with a flat object,
// {"object":"error","message":…,"type":…,"param":…,"code":…}, until
// 0.10.0; from 0.10.1 (pull request 22099) its ErrorResponse wraps an
// ErrorInfo in OpenAI's envelope, {"error":{"message":…,"type":…,
// "param":…,"code":…}}, the only shape the OpenAI SDKs read a message from.
const (
	FormatOpenAI = "openai" // vLLM ≥ 0.10.1
	FormatLegacy = "legacy" // vLLM ≤ 0.10.0
)

// ErrorInfo is the error as vLLM's ErrorInfo has it; the legacy shape adds
// "object":"error" beside the same members.
type ErrorInfo struct {
	Object  string  `json:"object,omitempty"`
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    int     `json:"code"`
}

// APIError is an error answer in either shape: Error set for the
// envelope, the embedded ErrorInfo for the legacy flat object.
type APIError struct {
	Error *ErrorInfo `json:"error,omitempty"`
	*ErrorInfo
}

// ErrorType is an error's "type" as vLLM writes it: its OpenAI-style class
// names for the errors its serving code raises (bad request, unknown
// model, internal), and the status phrase for the
// statuses that reach the client as GracefulHTTPError (admission's 503,
// 429 and the rest).
func ErrorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "BadRequestError"
	case http.StatusNotFound:
		return "NotFoundError"
	case http.StatusInternalServerError:
		return "InternalServerError"
	}
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "BadRequestError"
}

// ErrorBody renders an error of status in format; param, when not empty,
// names the request's member at fault.
func ErrorBody(format string, status int, msg, param string) []byte {
	info := &ErrorInfo{Message: msg, Type: ErrorType(status), Code: status}
	if param != "" && format != FormatLegacy {
		// vLLM named the parameter at fault only later; 0.10.0 and before
		// wrote null (a 404 for an unknown model: param=None in 0.8).
		info.Param = &param
	}
	v := APIError{Error: info}
	if format == FormatLegacy {
		info.Object = "error"
		v = APIError{ErrorInfo: info}
	}
	body, _ := json.Marshal(v)
	return body
}

// StreamErrorBody is what vLLM sends in place of the next chunk when
// generation fails mid-stream, before data: [DONE]: {"error": …} around
// its error, which in the legacy format still carries "object":"error"
// (vLLM then wrapped its flat ErrorResponse in an "error" member).
func StreamErrorBody(format string) []byte {
	info := ErrorInfo{Message: "Internal server error", Type: ErrorType(http.StatusInternalServerError), Code: http.StatusInternalServerError}
	if format == FormatLegacy {
		info.Object = "error"
	}
	body, _ := json.Marshal(struct {
		Error ErrorInfo `json:"error"`
	}{info})
	return body
}

// WriteError answers with status and an error body in format.
func WriteError(w http.ResponseWriter, format string, status int, msg, param string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(ErrorBody(format, status, msg, param))
}

// RequestError is a bad request, with the status to answer it with and
// the member at fault (Param), when vLLM names one.
type RequestError struct {
	Status int
	Msg    string
	Param  string
}

func (e *RequestError) Error() string { return e.Msg }

// BadRequest is a 400 naming no member.
func BadRequest(msg string) error { return &RequestError{Status: http.StatusBadRequest, Msg: msg} }

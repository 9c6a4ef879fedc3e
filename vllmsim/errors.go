package vllmsim

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Error body shapes (Config.ErrorFormat). vLLM answered errors with a flat
// object, {"object":"error","message":…,"type":…,"param":…,"code":…},
// until 0.10.0; from 0.10.1 (pull request 22099) its ErrorResponse wraps
// an ErrorInfo in OpenAI's envelope, {"error":{"message":…,"type":…,
// "param":…,"code":…}}, the only shape the OpenAI SDKs read a message from.
const (
	ErrorFormatOpenAI = "openai" // vLLM ≥ 0.10.1; the default
	ErrorFormatLegacy = "legacy" // vLLM ≤ 0.10.0, for testing clients against older servers
)

// errorInfo is the error as vLLM's ErrorInfo has it; the legacy shape adds
// "object":"error" beside the same members.
type errorInfo struct {
	Object  string  `json:"object,omitempty"`
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    int     `json:"code"`
}

// apiError is an error answer in either shape: Error set for the
// envelope, the embedded errorInfo for the legacy flat object.
type apiError struct {
	Error *errorInfo `json:"error,omitempty"`
	*errorInfo
}

// errorType is an error's "type" as vLLM writes it: its OpenAI-style class
// names for the errors its serving code raises (bad request, unknown
// model, internal), and the status phrase for the
// statuses that reach the client as GracefulHTTPError (admission's 503,
// 429 and the rest).
func errorType(status int) string {
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

// errorBody renders an error of status in the chosen format; param, when
// not empty, names the request's member at fault.
func errorBody(format string, status int, msg, param string) []byte {
	info := &errorInfo{Message: msg, Type: errorType(status), Code: status}
	if param != "" && format != ErrorFormatLegacy {
		// vLLM named the parameter at fault only later; 0.10.0 and before
		// wrote null (a 404 for an unknown model: param=None in 0.8).
		info.Param = &param
	}
	v := apiError{Error: info}
	if format == ErrorFormatLegacy {
		info.Object = "error"
		v = apiError{errorInfo: info}
	}
	body, _ := json.Marshal(v)
	return body
}

// streamErrorBody is what vLLM sends in place of the next chunk when
// generation fails mid-stream, before data: [DONE]: {"error": …} around
// its error, which in the legacy format still carries "object":"error"
// (vLLM then wrapped its flat ErrorResponse in an "error" member).
func streamErrorBody(format string) []byte {
	info := errorInfo{Message: "Internal server error", Type: errorType(http.StatusInternalServerError), Code: http.StatusInternalServerError}
	if format == ErrorFormatLegacy {
		info.Object = "error"
	}
	body, _ := json.Marshal(struct {
		Error errorInfo `json:"error"`
	}{info})
	return body
}

// writeError answers with status and an error body in the server's
// format.
func (s *Server) writeError(w http.ResponseWriter, status int, msg string) {
	writeErrorAs(w, s.Config.ErrorFormat, status, msg, "")
}

func writeErrorAs(w http.ResponseWriter, format string, status int, msg, param string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(errorBody(format, status, msg, param))
}

// checkErrorFormat validates Config.ErrorFormat, filling the default.
func (c *Config) checkErrorFormat() error {
	return chooseOne(&c.ErrorFormat, "--error-format", ErrorFormatOpenAI, ErrorFormatLegacy)
}

// chooseOne checks a setting of two values, the first its default when
// empty, and names the flag when it is neither.
func chooseOne(v *string, flag, def, other string) error {
	switch *v {
	case "":
		*v = def
	case def, other:
	default:
		return fmt.Errorf("vllmsim: %s must be %s or %s, got %q", flag, def, other, *v)
	}
	return nil
}

// requestError is a bad request, with the status to answer it with and
// the member at fault (param), when vLLM names one.
type requestError struct {
	status int
	msg    string
	param  string
}

func (e *requestError) Error() string { return e.msg }

func badRequest(msg string) error { return &requestError{status: http.StatusBadRequest, msg: msg} }

func init() {
	serveFlags["error-format"] = stringFlag(func(c *Config) *string { return &c.ErrorFormat })
}

package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// classifyContext names why a request's context ended, or returns fallback
// when it did not.
func (c *Client) classifyContext(parent, ctx context.Context, fallback ErrorClass) ErrorClass {
	switch cause := context.Cause(ctx); {
	case ctx.Err() == nil:
		return fallback
	case parent.Err() != nil:
		return ClassCanceled
	case errors.Is(cause, errStalled):
		return ClassStall
	case errors.Is(cause, errTimedOut):
		return ClassTimeout
	}
	return fallback
}

// clientLimit reports whether a request failed for want of the client's
// own resources (file descriptors, local ports) before it left.
func clientLimit(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.EADDRNOTAVAIL)
}

// snippet bounds what of an event goes into an error.
func snippet(b []byte) []byte {
	if len(b) > 256 {
		return b[:256]
	}
	return b
}

// redactedError is an error whose text had the API key removed.
type redactedError struct{ msg string }

func (e *redactedError) Error() string { return e.msg }

// redact removes the API key from err's text. The result does not wrap the
// original, so the key cannot be reached through errors.Unwrap either.
func (c *Client) redact(err error) error {
	if c.key == "" {
		return err
	}
	msg := err.Error()
	if !strings.Contains(msg, c.key) {
		return err
	}
	return &redactedError{msg: strings.ReplaceAll(msg, c.key, "[redacted]")}
}

// maxMessage bounds a server message kept in an Outcome, in bytes.
const maxMessage = 512

// serverMessage reads the message of an error response's body: today's
// vLLM and OpenAI answer {"error": {"message": ...}}, vLLM 0.10.0 and
// before {"object": "error", "message": ...}, some proxies {"error":
// "..."} or FastAPI's {"detail": "..."}; any other body is taken as plain
// text. Clients that read only one shape report an error with no words.
func serverMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message *string         `json:"message"`
		Detail  *string         `json:"detail"`
	}
	if json.Unmarshal(body, &v) != nil {
		return bounded(string(body))
	}
	var inner struct {
		Message *string `json:"message"`
	}
	var text string
	switch {
	case json.Unmarshal(v.Error, &inner) == nil && inner.Message != nil:
		return bounded(*inner.Message)
	case json.Unmarshal(v.Error, &text) == nil && text != "":
		return bounded(text)
	case v.Message != nil:
		return bounded(*v.Message)
	case v.Detail != nil:
		return bounded(*v.Detail)
	}
	return bounded(string(body))
}

// eventMessage decodes the raw message the chunk scanner kept from an
// error event: a JSON string's contents with its escapes, or the error
// member's raw value when it was not an object with a message.
func eventMessage(raw []byte) string {
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s) == nil {
		return bounded(s)
	}
	if json.Unmarshal(raw, &s) == nil {
		return bounded(s)
	}
	return bounded(string(raw))
}

// bounded trims s and cuts it to maxMessage bytes on a rune boundary.
func bounded(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Models returns the ids the server lists at GET /v1/models, in its order.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	cards, err := c.ModelCards(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(cards))
	for _, m := range cards {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// ModelCard is one model the server lists. MaxModelLen is vLLM's
// max_model_len (prompt plus output tokens); 0 when the server does not say.
type ModelCard struct {
	ID          string `json:"id"`
	MaxModelLen int    `json:"max_model_len"`
}

// ModelCards returns the models the server lists at GET /v1/models, in its
// order.
func (c *Client) ModelCards(ctx context.Context) ([]ModelCard, error) {
	ctx, cancel := context.WithTimeout(ctx, min(c.timeout, time.Minute))
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/v1/models", nil)
	if err != nil {
		return nil, c.redact(err)
	}
	if c.auth != "" {
		hreq.Header["Authorization"] = []string{c.auth}
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, c.redact(fmt.Errorf("load: listing models: %w", err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, c.redact(fmt.Errorf("load: listing models: HTTP %d from %s/v1/models: %s", resp.StatusCode, c.base, bytes.TrimSpace(msg)))
	}
	var list struct {
		Data []ModelCard `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&list); err != nil {
		return nil, fmt.Errorf("load: listing models from %s/v1/models: %v", c.base, err)
	}
	return list.Data, nil
}

// ServerMessage is the message of an error response's body, in any of the
// shapes serverMessage reads, trimmed and bounded: for probes made outside
// a request's Outcome.
func ServerMessage(body []byte) string { return serverMessage(body) }

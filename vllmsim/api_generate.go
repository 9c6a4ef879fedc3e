package vllmsim

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/llmslo/llmslo/vllmsim/drive"
	"github.com/llmslo/llmslo/vllmsim/engine"
	"github.com/llmslo/llmslo/vllmsim/tokenizer"
	"github.com/llmslo/llmslo/vllmsim/wire"
)

// maxBodyBytes bounds a request body (a 16k-token prompt as ids is ~100 KB).
const maxBodyBytes = 64 << 20

// handleGenerate serves /v1/completions (chat false) and
// /v1/chat/completions (chat true).
func (s *Server) handleGenerate(w http.ResponseWriter, r *http.Request, chat bool) {
	arrival := time.Now()
	if !s.ready() {
		s.writeError(w, http.StatusServiceUnavailable, "the engine is still loading the model")
		return
	}
	n := s.arrivals.Add(1) - 1
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes))
	if err != nil {
		s.writeError(w, http.StatusBadRequest, "reading the body: "+err.Error())
		return
	}
	req, err := wire.DecodeRequest(body, chat)
	if err != nil {
		s.writeRequestError(w, err)
		return
	}
	if req.Model != "" && req.Model != s.Config.servedName() {
		s.unknownModel(w, req.Model)
		return
	}
	maxTokens, err := s.checkLength(req)
	if err != nil {
		s.writeRequestError(w, err)
		return
	}
	fd := drawFaults(s.Config.Faults, s.Config.Seed, n)
	if fd.errorStatus != 0 {
		s.writeError(w, fd.errorStatus, s.faultMessage(r))
		return
	}
	h := engine.TokenHash(req.Prompt)
	outLen, reason := outputLength(req, maxTokens, s.Config.EOSMeanTokens, s.Config.Seed, h)
	if fd.truncate {
		if t := s.Config.Faults.truncated(maxTokens); t < outLen {
			outLen, reason = t, "stop"
		}
	}
	st := drive.NewStream(engine.NewSeq(n, req.Prompt, outLen), arrival, reason)
	if !s.Config.DisablePrefixCaching {
		// Hash here, not under the engine's lock.
		st.Seq.HashPrompt(s.Config.BlockSize)
	}
	if !s.takeIn(r, st) {
		return
	}
	if reason := s.loop.Submit(st); reason != "" {
		s.reject(w, reason)
		return
	}
	defer s.loop.Abort(st) // a no-op once the sequence finished

	prefix := "cmpl-"
	if chat {
		prefix = "chatcmpl-"
	}
	id := prefix + strconv.FormatUint(n, 10)
	created := time.Now().Unix()
	if req.Stream {
		f := wire.NewChunkFormat(chat, id, created, s.Config.servedName())
		f.EOL, f.Comments = s.Config.Faults.LineEnding, s.Config.Faults.Comments
		f.Continuous, f.Prompt = req.ContinuousUsage, len(req.Prompt)
		f.ErrData, f.Fingerprint = s.streamError, s.fingerprint
		s.writeStream(w, r, st, req, fd, f, h)
		return
	}
	s.writeWhole(w, r, st, req, fd, chat, id, created, h)
}

// takeIn spends the API server's time on the request (frontend.go), one
// request after another; it reports false when the client left or the
// server is closing meanwhile.
func (s *Server) takeIn(r *http.Request, st *drive.Stream) bool {
	at := s.loop.EnterIntake(st)
	if at.IsZero() {
		return true
	}
	if d := time.Until(at); d > 0 && !s.pause(r, d) {
		s.loop.GiveUp()
		return false
	}
	return true
}

// faultMessage is the message of an injected error status, with the
// request's headers when the fault echoes them.
func (s *Server) faultMessage(r *http.Request) string {
	msg := s.Config.Faults.ErrorMessage
	if !s.Config.Faults.ErrorEchoHeaders {
		return msg
	}
	names := make([]string, 0, len(r.Header))
	for k := range r.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		msg += "\n" + k + ": " + strings.Join(r.Header[k], ",")
	}
	return msg
}

// cachedTokens is usage's prompt_tokens_details.cached_tokens, or −1 when
// --enable-prompt-tokens-details is off. Read once the sequence produced a
// token: the engine set it before.
func (s *Server) cachedTokens(st *drive.Stream) int {
	if !s.Config.EnablePromptTokensDetails {
		return -1
	}
	return st.Seq.CachedTokens()
}

func (s *Server) writeRequestError(w http.ResponseWriter, err error) {
	if re, ok := err.(*wire.RequestError); ok {
		wire.WriteError(w, s.Config.ErrorFormat, re.Status, re.Msg, re.Param)
		return
	}
	s.writeError(w, http.StatusInternalServerError, err.Error())
}

// checkLength applies vLLM's context-length rules and returns max_tokens
// (max_model_len − prompt when the client gave none). vLLM renders the
// prompt cut at max_model_len − max_tokens and reports one token past the
// cut ("at least"), so the value it names is that bound, not the prompt's
// length; both errors name input_tokens as the parameter.
func (s *Server) checkLength(req wire.Request) (int, error) {
	limit, p := s.Config.MaxModelLen, len(req.Prompt)
	if p >= limit {
		return 0, &wire.RequestError{Status: http.StatusBadRequest, Param: "input_tokens", Msg: fmt.Sprintf(
			"This model's maximum context length is %d tokens. However, your request has %d input tokens. Please reduce the length of the input messages. (parameter=input_tokens, value=%d)", limit, p, p)}
	}
	if req.MaxTokens == -1 {
		return limit - p, nil
	}
	if p+req.MaxTokens > limit {
		least := limit - req.MaxTokens + 1
		return 0, &wire.RequestError{Status: http.StatusBadRequest, Param: "input_tokens", Msg: fmt.Sprintf(
			"This model's maximum context length is %d tokens. However, you requested %d output tokens and your prompt contains at least %d input tokens, for a total of at least %d tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=%d)",
			limit, req.MaxTokens, least, least+req.MaxTokens, least)}
	}
	return req.MaxTokens, nil
}

// wait blocks until the stream changes; it reports false when the client
// went away or the server is closing.
func (s *Server) wait(r *http.Request, st *drive.Stream) bool {
	select {
	case <-st.Changed():
		return true
	case <-r.Context().Done():
		return false
	case <-s.closing:
		return false
	}
}

// pause sleeps d unless the client goes away or the server closes.
func (s *Server) pause(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closing:
		return false
	}
}

// writeWhole waits for the request to finish and answers in one body.
func (s *Server) writeWhole(w http.ResponseWriter, r *http.Request, st *drive.Stream, req wire.Request, fd faultDraw, chat bool, id string, created int64, h uint64) {
	for {
		produced, done := st.Progress()
		if done {
			var text strings.Builder
			words := produced
			if st.FinishReason == "stop" {
				words-- // the end-of-sequence token has no text
			}
			for k := range words {
				text.WriteString(tokenizer.OutputText(h, k))
			}
			if at := s.pacedAt(st, produced-1); !at.IsZero() && !s.pause(r, time.Until(at)) {
				return
			}
			if fd.stall != never && !s.pause(r, s.Config.Faults.StallFor) {
				return
			}
			if fd.disconnect != never {
				s.loop.Abort(st)
				panic(http.ErrAbortHandler)
			}
			usage := wire.Usage{PromptTokens: len(req.Prompt), CompletionTokens: produced, TotalTokens: len(req.Prompt) + produced}
			if c := s.cachedTokens(st); c >= 0 {
				usage.PromptTokensDetails = &wire.PromptTokensDetails{CachedTokens: c}
			}
			if chat {
				wire.WriteJSON(w, wire.ChatResponse{ID: id, Object: "chat.completion", Created: created, Model: s.Config.servedName(),
					Choices: []wire.ChatChoice{{Message: wire.ChatMessage{Role: "assistant", Content: text.String()}, FinishReason: st.FinishReason}},
					Usage:   usage})
				return
			}
			wire.WriteJSON(w, wire.CompletionResponse{ID: id, Object: "text_completion", Created: created, Model: s.Config.servedName(),
				Choices: []wire.CompletionChoice{{Text: text.String(), FinishReason: st.FinishReason}}, Usage: usage})
			return
		}
		if !s.wait(r, st) {
			return
		}
	}
}

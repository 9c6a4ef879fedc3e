package vllmsim

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/llmslo/llmslo/vllmsim/tokenizer"
	"github.com/llmslo/llmslo/vllmsim/wire"
)

func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	if !s.ready() {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	wire.WriteJSON(w, struct {
		Object string           `json:"object"`
		Data   []wire.ModelCard `json:"data"`
	}{"list", []wire.ModelCard{{ID: s.Config.servedName(), Object: "model", Created: s.created, OwnedBy: "vllm",
		Root: s.Config.Model, MaxModelLen: s.Config.MaxModelLen, Permission: []any{}}}})
}

func (s *Server) handleVersion(w http.ResponseWriter, _ *http.Request) {
	wire.WriteJSON(w, map[string]string{"version": s.Config.Version})
}

func (s *Server) metricsHandler() http.Handler {
	return s.metrics.Handler()
}

// handleTokenize answers POST /tokenize with the same token ids the
// generation endpoints use: {"prompt": ...} as /v1/completions reads it,
// {"messages": [...]} as /v1/chat/completions renders it.
func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes))
	if err != nil {
		s.writeError(w, http.StatusBadRequest, "reading the body: "+err.Error())
		return
	}
	var probe struct {
		Model    string          `json:"model"`
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		s.writeError(w, http.StatusBadRequest, "invalid JSON body: "+err.Error())
		return
	}
	if probe.Model != "" && probe.Model != s.Config.servedName() {
		s.unknownModel(w, probe.Model)
		return
	}
	var tokens []int32
	if len(probe.Messages) > 0 {
		msgs, err := wire.DecodeMessages(probe.Messages)
		if err != nil {
			s.writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		tokens = tokenizer.ChatTokens(msgs)
	} else {
		var p struct {
			Prompt json.RawMessage `json:"prompt"`
		}
		_ = json.Unmarshal(body, &p)
		tokens, err = wire.DecodePrompt(p.Prompt)
		if err != nil {
			s.writeError(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	if tokens == nil {
		tokens = []int32{}
	}
	wire.WriteJSON(w, struct {
		Count       int     `json:"count"`
		MaxModelLen int     `json:"max_model_len"`
		Tokens      []int32 `json:"tokens"`
		TokenStrs   *string `json:"token_strs"`
	}{len(tokens), s.Config.MaxModelLen, tokens, nil})
}

// unknownModel answers as vLLM's _check_model does: 404, naming "model".
func (s *Server) unknownModel(w http.ResponseWriter, model string) {
	wire.WriteError(w, s.Config.ErrorFormat, http.StatusNotFound, "The model `"+model+"` does not exist.", "model")
}

// Tokenize returns the simulator's token ids for text, as POST /tokenize
// and the generation endpoints count them (package tokenizer).
func Tokenize(text string) []int32 { return tokenizer.Tokenize(text) }

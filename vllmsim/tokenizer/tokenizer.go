package tokenizer

import "unicode/utf8"

const (
	MinWordID = 1000   // the lowest id a word gets; template tokens are below it
	VocabSize = 128256 // Llama 3's vocabulary: ids fall in [0, VocabSize)
)

// Template token ids (below MinWordID, so they never collide with words).
const (
	tokHeaderStart = 128 + iota
	tokHeaderEnd
	tokEndOfTurn
	tokRoleSystem
	tokRoleUser
	tokRoleAssistant
	tokRoleTool
	tokRoleOther
)

func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x85, 0xA0:
		return true
	}
	if r < 0x1680 {
		return false
	}
	return r == 0x1680 || (r >= 0x2000 && r <= 0x200a) || r == 0x2028 || r == 0x2029 || r == 0x202f || r == 0x205f || r == 0x3000
}

// appendTokens appends the token ids of text to dst.
func appendTokens(dst []int32, text string) []int32 {
	start := -1
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if isSpace(r) {
			if start >= 0 {
				dst = append(dst, wordID(text[start:i]))
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i += size
	}
	if start >= 0 {
		dst = append(dst, wordID(text[start:]))
	}
	return dst
}

// Tokenize returns the simulator's token ids for text.
func Tokenize(text string) []int32 { return appendTokens(nil, text) }

func wordID(w string) int32 {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h ^= uint32(w[i])
		h *= 16777619
	}
	return int32(MinWordID + h%(VocabSize-MinWordID))
}

// ChatMessage is one message of a chat prompt, its content flattened to text.
type ChatMessage struct {
	Role    string
	Content string
}

// ChatTokens renders messages through the chat template.
func ChatTokens(msgs []ChatMessage) []int32 {
	var out []int32
	for _, m := range msgs {
		role := int32(tokRoleOther)
		switch m.Role {
		case "system", "developer":
			role = tokRoleSystem
		case "user":
			role = tokRoleUser
		case "assistant":
			role = tokRoleAssistant
		case "tool":
			role = tokRoleTool
		}
		out = append(out, tokHeaderStart, role, tokHeaderEnd)
		out = appendTokens(out, m.Content)
		out = append(out, tokEndOfTurn)
	}
	return append(out, tokHeaderStart, tokRoleAssistant)
}

// outputWords are the texts of generated tokens. Each is one word preceded
// by a space, so that re-tokenizing a completion gives back its token count,
// and none needs escaping in JSON.
var outputWords = [...]string{
	" the", " of", " and", " to", " in", " a", " is", " that", " for", " it",
	" as", " was", " with", " be", " by", " on", " not", " he", " this", " are",
	" or", " his", " from", " at", " which", " but", " have", " an", " had", " they",
	" you", " were", " their", " one", " all", " we", " can", " her", " has", " there",
	" been", " if", " more", " when", " will", " would", " who", " so", " no", " model",
	" token", " cache", " batch", " queue", " serve", " load", " step", " block", " prefix", " engine",
	" rate", " time", " first", " last",
}

// OutputText is the text of the k-th generated token of a request whose
// prompt hashes to h.
func OutputText(h uint64, k int) string {
	return outputWords[(h+uint64(k)*0x9e3779b97f4a7c15)>>58]
}

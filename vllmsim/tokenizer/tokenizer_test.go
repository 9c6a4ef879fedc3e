package tokenizer

import (
	"slices"
	"strings"
	"testing"
)

func FuzzTokenize(f *testing.F) {
	f.Add("hello  world\n")
	f.Add("\u00a0x\u3000y")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := len(Tokenize(s)), len(strings.FieldsFunc(s, isSpace)); got != want {
			t.Fatalf("%q: %d tokens, %d fields", s, got, want)
		}
	})
}

// A user's "hi" renders as its header, the word, the end of its turn and
// the assistant's header.
func TestChatTokensTemplate(t *testing.T) {
	got := ChatTokens([]ChatMessage{{Role: "user", Content: "hi"}})
	want := []int32{tokHeaderStart, tokRoleUser, tokHeaderEnd, wordID("hi"), tokEndOfTurn, tokHeaderStart, tokRoleAssistant}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

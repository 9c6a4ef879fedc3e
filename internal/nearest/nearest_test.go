package nearest

import (
	"testing"
	"unicode/utf8"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"abc", "abc", 0},
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"azure-conv-2024", "azure-conv-2023", 1},
		{"tfft", "ttft", 1},
		{"ttf", "ttft", 1},
		{"itl", "tpot", 4},
		{"µs", "us", 1}, // one rune, though two bytes
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

type metric string

func TestNameSuggestsOnlyANearMiss(t *testing.T) {
	known := []metric{"ttft", "itl", "tpot", "e2el"}
	tests := []struct {
		s        string
		maxEdits int
		want     metric
		found    bool
	}{
		{"ttft", 2, "ttft", true},
		{"tfft", 2, "ttft", true},
		{"tpto", 2, "tpot", true},
		{"e2e", 2, "e2el", true},
		{"latency", 2, "", false}, // far from every name
		{"tfft", 0, "", false},    // one edit, none allowed
		{"it", 1, "itl", true},    // "it" is one from itl, two from ttft
	}
	for _, tt := range tests {
		got, found := Name(tt.s, known, tt.maxEdits)
		if got != tt.want || found != tt.found {
			t.Errorf("Name(%q, maxEdits %d) = %q, %v; want %q, %v", tt.s, tt.maxEdits, got, found, tt.want, tt.found)
		}
	}
	if got, found := Name("ab", []string{"ax", "ay"}, 1); got != "ax" || !found {
		t.Errorf("of two as near, Name chose %q, %v; want the first, ax", got, found)
	}
	if _, found := Name("a", []string(nil), 5); found {
		t.Error("Name found a name among none")
	}
}

// Distance is a metric on runes: zero only for equal strings, symmetric,
// no more than the longer length and no less than the lengths' difference.
func FuzzDistance(f *testing.F) {
	f.Add("kitten", "sitting")
	f.Add("µs", "us")
	f.Add("", "abc")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			t.Skip("names are text")
		}
		d := Distance(a, b)
		la, lb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
		if d != Distance(b, a) {
			t.Fatalf("Distance(%q, %q) = %d but the reverse is %d", a, b, d, Distance(b, a))
		}
		if (d == 0) != (a == b) {
			t.Fatalf("Distance(%q, %q) = %d", a, b, d)
		}
		if d > max(la, lb) || d < max(la-lb, lb-la) {
			t.Fatalf("Distance(%q, %q) = %d, outside [%d, %d]", a, b, d, max(la-lb, lb-la), max(la, lb))
		}
	})
}

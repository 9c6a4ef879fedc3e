package observe

import (
	"reflect"
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/client"
)

func TestErrorMessagesKeepsFirstDistinct(t *testing.T) {
	m := NewErrorMessages()
	if m.Report() != nil {
		t.Fatal("an empty collection reports messages")
	}
	for _, msg := range []string{"too long: 120 tokens", "too long: 120 tokens", " ", "too long: 130 tokens", "bad n", "too long: 140 tokens", "too long: 150 tokens"} {
		m.Add("http_400", msg)
	}
	m.Add("server_error", "Internal server error")
	m.Add("", "no class")
	want := map[string][]string{
		"http_400":     {"too long: 120 tokens", "too long: 130 tokens", "bad n"},
		"server_error": {"Internal server error"},
	}
	got := m.Report()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	got["http_400"][0] = "changed"
	if m.Report()["http_400"][0] != "too long: 120 tokens" {
		t.Fatal("Report shares its slices with the collection")
	}
}

// A credential a proxy echoes is redacted, whoever's it is; one the client
// already redacted stays as it was.
func TestErrorMessagesRedactBearerTokens(t *testing.T) {
	m := NewErrorMessages()
	m.Add("http_401", "bad key\nAuthorization: Bearer sk-other-tenant-123")
	m.Add("http_401", "bad key\nAuthorization: Bearer [redacted]")
	m.Add("http_401", `{"auth":"bearer abc.def"}`)
	want := []string{"bad key\nAuthorization: Bearer [redacted]", `{"auth":"bearer [redacted]"}`}
	if got := m.Report()["http_401"]; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// The recorder keeps the server's words of measured failures, by class,
// and the step report carries them.
func TestRecorderReportsErrorMessages(t *testing.T) {
	start := time.Now()
	r := NewRecorder(start, time.Minute, PerRequestLimits{}, LengthCheck{})
	fail := func(intended time.Time, class client.ErrorClass, msg string) {
		o := &client.Outcome{Intended: intended, Sent: intended, Class: class, Message: msg}
		r.Started(intended)
		r.Record(o, intended.Add(time.Millisecond))
	}
	fail(start.Add(-time.Second), "http_400", "warm-up: not measured")
	fail(start.Add(time.Second), "http_400", "This model's maximum context length is 100 tokens.")
	fail(start.Add(2*time.Second), "http_400", "This model's maximum context length is 100 tokens.")
	fail(start.Add(3*time.Second), client.ClassReset, "")
	s, _ := r.Summary()
	want := map[string][]string{"http_400": {"This model's maximum context length is 100 tokens."}}
	if !reflect.DeepEqual(s.ErrorMessages, want) || s.Errors["http_400"] != 2 {
		t.Fatalf("messages %v, errors %v; want %v and 2", s.ErrorMessages, s.Errors, want)
	}
}

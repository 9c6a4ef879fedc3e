package vllmsim

import "testing"

// ParseDrift never panics, and what it accepts it writes back in a form it
// reads again as the same drift.
func FuzzParseDrift(f *testing.F) {
	for _, s := range []string{"sine:10%:2m", "step:5%@2026-12-05T15:00:00Z", "sine:0.1:1s", "step:1@2000-01-01T00:00:00.5Z", "sine::", ":", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDrift(s)
		if err != nil {
			return
		}
		again, err := ParseDrift(d.String())
		if err != nil {
			t.Fatalf("%q read as %q, which does not read back: %v", s, d.String(), err)
		}
		if again.String() != d.String() {
			t.Fatalf("%q: %q then %q", s, d.String(), again.String())
		}
	})
}

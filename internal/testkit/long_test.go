package testkit

import "testing"

// Without LLMSLO_LONG=1 a long test is skipped; with it, it runs.
func TestLongSkipsUnlessTheVariableIsOne(t *testing.T) {
	for value, wantRun := range map[string]bool{"": false, "0": false, "1": true} {
		t.Setenv(LongEnv, value)
		ran := false
		t.Run("LLMSLO_LONG="+value, func(t *testing.T) {
			Long(t)
			ran = true
		})
		if ran != wantRun {
			t.Errorf("LLMSLO_LONG=%q: ran %v, want %v", value, ran, wantRun)
		}
	}
}

package verdict

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
)

// On a server whose lengths were declared advisory, outputs that ended
// early in the share and by the size that make a mismatch leave the step
// passing, with a note that says the workload was lighter than asked and
// by how much; a few short ones, or a server not so declared, get none.
func TestLighterThanAskedIsNotedOnADeclaredServer(t *testing.T) {
	s := &report.StepReport{LengthEndedEarly: 40, Requests: report.RequestCounts{Completed: 100}, Tokens: report.TokenCounts{Output: 4800}}
	ev := stepEvidence{passing: true, lengthsAdvisory: true, meanOutput: 64, Evidence: observe.Evidence{LengthChecked: 100, OutputAsked: 6400, OutputGiven: 4800, OutputRequests: 100}}
	f := lengthMismatch(s, ev, DefaultThresholds())
	assert.True(t, f.seen)
	assert.False(t, f.decides, "declared advisory: the outputs are judged as given")
	assert.Equal(t, HazardLengthMismatch, f.Kind)
	assert.Contains(t, f.Message, "the workload was lighter than asked: 40 of 100 requests (40.0%) ended more than 1% short")
	assert.Contains(t, f.Message, "48.0 output tokens a request given for 64.0 asked")

	s.LengthEndedEarly = 2
	assert.False(t, lengthMismatch(s, ev, DefaultThresholds()).seen, "2% is within the threshold")
	s.LengthEndedEarly = 40
	ev.lengthsAdvisory = false
	assert.False(t, lengthMismatch(s, ev, DefaultThresholds()).seen, "not declared, short outputs are mismatches, counted as such")
}

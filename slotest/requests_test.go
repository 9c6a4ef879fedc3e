package slotest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
)

// The report directory gets requests.jsonl next to report.json: a line per
// request, the abandoned ones those the report counts.
func TestRunWritesRequestsNextToTheReport(t *testing.T) {
	dir := t.TempDir()
	rep := Run(t, instantSim(WithReportDir(dir), WithFixture("fixed:32:10"), WithCancel(0.5, 100*time.Millisecond),
		WithSim(vllmsim.Config{ProfileName: "instant", Faults: vllmsim.Faults{PacedTTFT: 20 * time.Millisecond, PacedITL: 20 * time.Millisecond}}),
		WithSLO("ttft.p50<=10s"), WithThresholds(func(th *verdict.Thresholds) { th.Off = append(th.Off, verdict.HazardTooFewSamples) }))...)
	f, err := os.Open(filepath.Join(dir, "requests.jsonl"))
	require.NoError(t, err, "written by the time Run returns")
	defer f.Close()
	lines, abandoned := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r observe.RequestRecord
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		lines++
		if r.Outcome == "abandoned" {
			abandoned++
		}
	}
	s := rep.Steps[0]
	assert.Equal(t, s.Requests.Sent, lines)
	assert.Positive(t, abandoned)
	assert.Equal(t, abandoned, s.Requests.Abandoned)
	assert.Equal(t, lines, s.Requests.Completed+abandoned)
}

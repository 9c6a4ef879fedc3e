package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunRefusesBadThinkTimes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--think-time-scale", "0"}, "--think-time-scale 0"},
		{[]string{"--think-time-scale", "-0.5"}, "--think-time-scale -0.5"},
		{[]string{"--think-time-scale", "NaN"}, "--think-time-scale NaN"},
		{[]string{"--max-think", "-1s"}, "--max-think -1s"},
	} {
		code, _, stderr := runArgs(t, append([]string{"run", "--rates", "1", "--quiet"}, tc.args...)...)
		assert.Equal(t, exitUsage, code, "%v: %s", tc.args, stderr)
		assert.Contains(t, stderr, tc.want)
	}
}

func TestRunReplaysSessionsPerSecond(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.json")
	code, stdout, stderr := runArgs(t, "run", "--fixture", "../../fixtures/formats/testdata/weka/trace_0103.json",
		"--rates", "3", "--arrival", "constant", "--duration", "700ms", "--warmup", "0", "--think-time-scale", "0.01", "--max-think", "20ms",
		"--sim-args", "--profile instant --max-model-len 32768", "--slo", "ttft.p50<=1s", "--quiet", "--report", out)
	require.NotEqual(t, exitUsage, code, stderr)
	assert.Contains(t, stdout, "asked sessions/s")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	var rep struct {
		Steps []struct {
			Sessions struct {
				Started        int     `json:"started"`
				ThinkTimeScale float64 `json:"think_time_scale"`
				MaxThinkS      float64 `json:"max_think_s"`
			} `json:"sessions"`
			Turns map[string]struct {
				Sent int `json:"sent"`
				TTFT struct {
					Count int `json:"count"`
				} `json:"ttft_ms"`
			} `json:"turns"`
		} `json:"steps"`
	}
	require.NoError(t, json.Unmarshal(b, &rep))
	require.Len(t, rep.Steps, 1)
	st := rep.Steps[0]
	assert.Equal(t, 3, st.Sessions.Started, "3 sessions/s for 0.7 s, one of them at 0")
	assert.Equal(t, 0.01, st.Sessions.ThinkTimeScale)
	assert.Equal(t, 0.02, st.Sessions.MaxThinkS)
	assert.Equal(t, 3, st.Turns["first"].Sent)
	assert.Equal(t, 6, st.Turns["later"].Sent, "trace_0103 has three turns")
	assert.Equal(t, 6, st.Turns["later"].TTFT.Count)
}

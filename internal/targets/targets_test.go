package targets

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/simtarget"
)

func TestParseChoosesTheTargetByName(t *testing.T) {
	for _, name := range []string{"", "sim", " sim "} {
		tg, err := Parse(name, Options{Sim: vllmsim.Config{ProfileName: "instant"}, Model: "m"})
		require.NoError(t, err)
		assert.Equal(t, simtarget.Sim{Config: vllmsim.Config{ProfileName: "instant"}, Model: "m"}, tg, "%q", name)
	}
	tg, err := Parse("https://host:8000/v1", Options{Model: "m", APIKey: "k"})
	require.NoError(t, err)
	assert.Equal(t, load.URLTarget{URL: "https://host:8000/v1", Model: "m", APIKey: "k"}, tg)

	tg, err = Parse("vllm", Options{Model: "m", Image: "img", VLLMArgs: []string{"--x"}})
	require.NoError(t, err)
	assert.Equal(t, load.ContainerTarget{Image: "img", Model: "m", Args: []string{"--x"}}, tg)

	_, err = Parse("vllm", Options{})
	assert.ErrorContains(t, err, "needs a model")
	_, err = Parse("nonsense", Options{})
	assert.ErrorContains(t, err, `unknown target "nonsense"`)
}

func TestAPIKeyFromEnv(t *testing.T) {
	t.Setenv(EnvAPIKey, "")
	t.Setenv(EnvOpenAIKey, "sk-openai")
	assert.Equal(t, "sk-openai", APIKeyFromEnv())
	t.Setenv(EnvAPIKey, " sk-llmslo ")
	assert.Equal(t, "sk-llmslo", APIKeyFromEnv(), "LLMSLO_API_KEY comes first")
}

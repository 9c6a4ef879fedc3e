package load

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/vllmsim"
)

func TestURLTargetErrorsCarryNoSecret(t *testing.T) {
	_, err := URLTarget{URL: "http://127.0.0.1:1", APIKey: "sk-secret-value"}.Start(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not answer GET /v1/models")
	assert.NotContains(t, err.Error(), "sk-secret-value")

	_, err = URLTarget{URL: "ftp://host"}.Start(context.Background())
	assert.ErrorContains(t, err, "not an http(s) URL")

	_, err = ContainerTarget{Model: "m"}.Start(context.Background())
	assert.ErrorContains(t, err, "no container starter")
	_, err = ContainerTarget{}.Start(context.Background())
	assert.ErrorContains(t, err, "needs a model")
}

func TestURLTargetReportsNoSecret(t *testing.T) {
	srv := simtest.Start(t, vllmsim.Config{ProfileName: "instant", ServedModelName: "served"})
	_, err := URLTarget{URL: strings.Replace(srv.URL, "http://", "http://user:pw@", 1)}.Start(context.Background())
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "pw")

	ep, err := URLTarget{URL: srv.URL + "/v1/", APIKey: "sk-secret-value"}.Start(context.Background())
	require.NoError(t, err)
	defer ep.Close()
	assert.Equal(t, "served", ep.Model, "the first model the server lists")
	b, err := json.Marshal(ep.Info())
	require.NoError(t, err)
	assert.NotContains(t, string(b), "sk-secret-value")
	assert.Equal(t, srv.URL, ep.URL, "a trailing /v1 is dropped")
}

func TestContainerTargetTakesVariantFlags(t *testing.T) {
	var got ContainerRequest
	start := ContainerStarterFunc(func(_ context.Context, req ContainerRequest) (StartedContainer, error) {
		got = req
		return StartedContainer{URL: "http://127.0.0.1:9", Stop: func() error { return nil }}, nil
	})
	base := ContainerTarget{Starter: start, Image: "img", Model: "m", Args: []string{"--a"}}
	v, err := base.WithFlags([]string{"--max-num-seqs", "8"})
	require.NoError(t, err)
	ep, err := v.Start(context.Background())
	require.NoError(t, err)
	assert.Equal(t, ContainerRequest{Image: "img", Model: "m", DevMode: true, Args: []string{"--a", "--max-num-seqs", "8"}}, got)
	assert.Equal(t, []string{"--a"}, base.Args, "the base target is left alone")
	assert.Equal(t, KindVLLM, ep.Kind)
	assert.NoError(t, ep.Close())
}

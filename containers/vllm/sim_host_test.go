package vllm

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/llmslo/llmslo/internal/dockergate"
)

// The simulator's image, run as vllm/vllm-openai is run, with no --host,
// listens on all its interfaces: the published port answers.
func TestSimImageListensOnAllInterfaces(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	img := simImage(t)
	label, id := dockergate.Labelled(t, testcontainers.WithLabels)
	ctx := context.Background()
	req := testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image:        img,
			ExposedPorts: []string{ContainerPort},
			Cmd:          []string{"--model", "Qwen/Qwen3-0.6B", "--port", "8000"},
			WaitingFor: onPublishedHost{inner: wait.ForHTTP("/health").WithPort(ContainerPort).
				WithStartupTimeout(time.Minute).WithPollInterval(200 * time.Millisecond)},
		},
		Started: true,
	}
	require.NoError(t, label.Customize(&req))
	ctr, err := testcontainers.GenericContainer(ctx, req)
	// A start that failed may still have left a container: end it either way.
	defer dockergate.AssertNoContainer(t, id)
	defer func() { assert.NoError(t, testcontainers.TerminateContainer(ctr)) }()
	require.NoError(t, err)

	dc, ok := ctr.(*testcontainers.DockerContainer)
	require.True(t, ok)
	base, err := (&Container{DockerContainer: dc}).BaseURL(ctx)
	require.NoError(t, err)
	resp, err := http.Get(base + "/v1/models")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var models struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&models))
	require.NotEmpty(t, models.Data)
	assert.Equal(t, "Qwen/Qwen3-0.6B", models.Data[0].ID)
	assert.Equal(t, 40960, models.Data[0].MaxModelLen, "Qwen3-0.6B's context, from its shape")

	inspect, err := dc.Inspect(ctx)
	require.NoError(t, err)
	assert.Contains(t, inspect.Config.Env, "LLMSLO_SIM_HOST=0.0.0.0")
}

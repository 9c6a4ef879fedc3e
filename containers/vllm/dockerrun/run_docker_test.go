package dockerrun

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/containers/vllm"
	"github.com/llmslo/llmslo/containers/vllm/serve"
	"github.com/llmslo/llmslo/internal/dockergate"
	"github.com/llmslo/llmslo/vllmsim"
)

const (
	// simTag is this package's own tag, so that rebuilding it never
	// untags an image another package's tests are running.
	simTag = "llmslo/vllm-sim:dockerrun"
	// fakeToken is a made-up Hugging Face token.
	fakeToken = "hf_fAkEtOkEn0123456789abcdefXYZ"
	model     = "Qwen/Qwen3-0.6B" // a model the simulator knows
)

// simImage builds the simulator's image from this checkout, once per run.
func simImage(t *testing.T) string { return dockergate.SimImage(t, simTag, vllm.BuildSimImage) }

func inspect(t *testing.T, id string) client.ContainerInspectResult {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	require.NoError(t, err)
	defer cli.Close()
	res, err := cli.ContainerInspect(context.Background(), id, client.ContainerInspectOptions{})
	require.NoError(t, err)
	return res
}

func TestRunSimulator(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	img := simImage(t)
	label, id := dockergate.Labelled(t, serve.WithLabels)
	start := time.Now()
	ctr, err := Run(context.Background(), img,
		serve.WithModel(model), serve.WithServedModelName("qwen-sim"), serve.WithDevMode(),
		serve.WithVLLMArgs("--max-num-seqs", "64", "--fault-startup-delay", "2s"),
		serve.WithStartupTimeout(2*time.Minute), label)
	require.NoError(t, err)
	defer dockergate.AssertNoContainer(t, id)
	defer func() { assert.NoError(t, ctr.Close()) }()
	// The simulator answers 503 for its first 2s: Run waited for 200.
	assert.GreaterOrEqual(t, time.Since(start), 2*time.Second)

	assert.Regexp(t, `^http://127\.0\.0\.1:[0-9]+$`, ctr.BaseURL())
	assert.Equal(t, "qwen-sim", ctr.Model())
	resp, err := http.Get(ctr.BaseURL() + "/v1/models")
	require.NoError(t, err)
	var models struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&models))
	_ = resp.Body.Close()
	require.NotEmpty(t, models.Data)
	assert.Equal(t, "qwen-sim", models.Data[0].ID)

	resp, err = http.Post(ctr.BaseURL()+"/reset_prefix_cache", "", nil)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "dev mode reached the container")

	res := inspect(t, ctr.ID())
	assert.Equal(t, []string{"--model", model, "--served-model-name", "qwen-sim", "--host", "0.0.0.0", "--port", "8000",
		"--max-num-seqs", "64", "--fault-startup-delay", "2s"}, res.Container.Config.Cmd)
	assert.Contains(t, res.Container.Config.Env, "VLLM_SERVER_DEV_MODE=1")
	assert.Equal(t, "host", string(res.Container.HostConfig.IpcMode))
	for _, b := range res.Container.NetworkSettings.Ports[mustPort(t)] {
		assert.Equal(t, "127.0.0.1", b.HostIP.String(), "published on loopback only")
	}

	require.NoError(t, ctr.Close())
	assert.NoError(t, ctr.Close(), "a second Close is harmless")
}

func TestRunBadArgumentCarriesTheLogs(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	img := simImage(t)
	label, id := dockergate.Labelled(t, serve.WithLabels)
	_, parseErr := vllmsim.ParseServeArgs([]string{"--model", model, "--max-num-seqs", "banana"})
	require.Error(t, parseErr)
	want := "llmslo sim: " + parseErr.Error()

	start := time.Now()
	ctr, err := Run(context.Background(), img, serve.WithModel(model), serve.WithVLLMArgs("--max-num-seqs", "banana"),
		serve.WithStartupTimeout(5*time.Minute), label)
	assert.Nil(t, ctr)
	require.Error(t, err)
	var se *serve.StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, img, se.Image)
	assert.Contains(t, err.Error(), "container exited with code 3")
	assert.Contains(t, se.Logs, want)
	assert.NoError(t, se.LogsErr)
	assert.NoError(t, se.CleanupErr)
	assert.Less(t, time.Since(start), 2*time.Minute, "an exit is noticed on the next poll, not at the timeout")
	dockergate.AssertNoContainer(t, id)
}

func TestRunNeverShowsTheToken(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	img := simImage(t)
	label, id := dockergate.Labelled(t, serve.WithLabels)
	// The simulator repeats the bad value in its error: the token reaches
	// the container's log.
	ctr, err := Run(context.Background(), img, serve.WithModel(model), serve.WithHFToken(fakeToken),
		serve.WithVLLMArgs("--max-num-seqs", fakeToken), label)
	assert.Nil(t, ctr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"[REDACTED]" is not an integer`)
	for e := err; e != nil; e = errors.Unwrap(e) {
		assert.NotContains(t, e.Error(), fakeToken)
	}
	var se *serve.StartError
	require.ErrorAs(t, err, &se)
	for _, l := range se.Logs {
		assert.NotContains(t, l, fakeToken)
	}
	dockergate.AssertNoContainer(t, id)
}

func TestRunNeverHealthy(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	img := simImage(t)
	label, id := dockergate.Labelled(t, serve.WithLabels)
	// vLLM 0.9's 503 while loading (today's vLLM refuses connections,
	// which the container's port forwarding shows as an EOF): the error
	// names the last answer the server gave.
	ctr, err := Run(context.Background(), img, serve.WithModel(model),
		serve.WithVLLMArgs("--fault-startup-delay", "1h", "--startup-behavior", "503"), serve.WithStartupTimeout(3*time.Second), label)
	assert.Nil(t, ctr)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "last: status 503")
	var se *serve.StartError
	require.ErrorAs(t, err, &se)
	assert.NotEmpty(t, se.Logs, "the server's own log lines are attached")
	dockergate.AssertNoContainer(t, id)
}

func TestRunCancelledRemovesTheContainer(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	img := simImage(t)
	label, id := dockergate.Labelled(t, serve.WithLabels)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(2*time.Second, cancel)
	ctr, err := Run(ctx, img, serve.WithModel(model), serve.WithVLLMArgs("--fault-startup-delay", "1h"), label)
	assert.Nil(t, ctr)
	require.ErrorIs(t, err, context.Canceled)
	dockergate.AssertNoContainer(t, id)
}

// A missing image is pulled; with no registry the pull fails, and says so.
func TestRunPullsAMissingImage(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	dockergate.Require(t)
	label, id := dockergate.Labelled(t, serve.WithLabels)
	ctr, err := Run(context.Background(), "llmslo/never-built:none", serve.WithModel(model), label)
	assert.Nil(t, ctr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "image llmslo/never-built:none is not on the Docker engine, and pulling it failed")
	dockergate.AssertNoContainer(t, id)
}

func TestRunGPUWithoutNVIDIARuntime(t *testing.T) {
	dockergate.Require(t)
	cli, err := client.New(client.FromEnv)
	require.NoError(t, err)
	defer cli.Close()
	names, err := serve.Runtimes(context.Background(), cli)
	require.NoError(t, err)
	if serve.HasNVIDIARuntime(names) {
		t.Skip("this engine has an NVIDIA runtime: there is no missing GPU to report")
	}
	// The image does not exist: had Run gone on, the error would be about
	// the pull.
	ctr, err := Run(context.Background(), "llmslo/never-built:none", serve.WithModel(model), serve.WithGPUs(serve.AllGPUs))
	assert.Nil(t, ctr)
	require.ErrorIs(t, err, serve.ErrNoGPU)
	assert.False(t, strings.Contains(err.Error(), "pull"), err.Error())
}

// Bad input is refused before the engine is asked anything.
func TestRunRejectsBeforeDocker(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	for _, tt := range []struct {
		img  string
		opts []serve.Option
		want string
	}{
		{"", []serve.Option{serve.WithModel("m")}, "vllm: no image given"},
		{"img", nil, "vllm: no model given: use WithModel"},
		{"img", []serve.Option{serve.WithModel("m"), serve.WithLogTail(-1)}, "vllm: WithLogTail: -1 is negative"},
	} {
		ctr, err := Run(context.Background(), tt.img, tt.opts...)
		assert.Nil(t, ctr)
		assert.EqualError(t, err, tt.want)
	}
	_, err := Run(context.Background(), "img", serve.WithModel("m"))
	require.Error(t, err)
	assert.True(t, slices.ContainsFunc([]string{"nonexistent", "docker"}, func(s string) bool { return strings.Contains(err.Error(), s) }), err.Error())
}

func mustPort(t *testing.T) network.Port {
	t.Helper()
	p, err := network.ParsePort(serve.ContainerPort)
	require.NoError(t, err)
	return p
}
